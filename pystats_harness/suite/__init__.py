"""The reference suite that runs *inside* a built ``--enable-pystats`` interpreter.

This directory is mounted read-only at ``/suite`` in a run container and executed by the built
interpreter (3.11, 3.12 or 3.13+, stdlib only; ``automated.py`` also imports pyperf from the
read-only wheelhouse ``/wheels/site`` made by ``scripts/make-wheelhouse.sh``).  Nothing in here
imports ``pystats_harness``: the scripts put their own directory on ``sys.path`` and import
``common``, ``canaries`` and ``workloads.<name>`` as top-level modules.  On the host the same files
are importable as ``pystats_harness.suite.*`` (the unit tests do that).

=================  ==========================================================================
``manual.py``      ``python3 -B /suite/manual.py WORKLOAD LOOPS``: import + setup outside the
                   bracket, then ``sys._stats_on(); run(LOOPS); sys._stats_off()``
``automated.py``   the same workload through real pyperf ``--hook pystats`` (``bench_time_func``)
``canaries.py``    loop kernels whose per-iteration opcode counts follow from ``dis``
``canary_expect``  what ``dis`` of a kernel's loop body executes per iteration (the walk)
``canary_rules``   the correction rules (name-keyed), each applied where the build's source shows it
``canary_source``  the facts those rules are decided on, read from the revision's handlers in /src
``canary_counts``  reading dumps and comparing N and 2N runs (pure; the host reuses it)
``common.py``      workload loading and the timed call both drivers make inside the bracket
``workloads/``     one module per workload, each with ``run(loops)``; ``null`` (no work: measures
                   a path's bracket overhead) and ``leaky`` (a planted leak) are not benchmarks
=================  ==========================================================================
"""
