"""Automated path: the workload through real pyperf (>= 2.8) with ``--hook pystats``.

    python3 -B /suite/automated.py WORKLOAD --loops N --warmups 0 --values V --processes P \\
        --hook pystats -o /tmp/out.json [--site DIR] [--leak] [other pyperf options]

``--hook pystats`` is added when no ``--hook`` is given; ``PYTHONHASHSEED`` is added to pyperf's
``--inherit-environ`` (pyperf gives workers a filtered environment, which would otherwise give
every worker a random hash seed).  ``--site DIR`` (default ``/wheels/site``, or
``$PYSTATS_SUITE_SITE``) is put on ``sys.path`` before pyperf is imported, here and -- passed on
the command line -- in every worker; ``-B`` is passed to workers too (``/suite`` is read-only).
``--leak`` plants a leak: the workload's ``setup()`` -- or, for a workload without one, an extra
``run(1)`` -- is called inside the bracket before every value (always so for a workload with
``SETUP_IN_BRACKET``, i.e. ``leaky``); ``manual.py`` never does that, so the leak check must see
the difference (for ``--leak`` on a benchmark: exactly one loop's counts more per value).

What runs inside brackets (read from pyperf 2.10.0 ``_runner.py``, ``_manager.py``,
``_worker.py``, ``_hooks.py``; the same since 2.8.0):

* The parent ("manager") process never brackets: ``Runner()`` does not touch stats and the hooks
  are only instantiated in workers.  With ``--loops N >= 1`` and ``--warmups W`` given there is
  no calibration: the manager spawns exactly P workers (``sys.executable``, this script), one
  after the other.  It exits normally, so it dumps too -- an all-zero file or none, as the
  interpreter's "dump when never switched on" semantics dictate.
* Each worker runs ``WorkerTask.compute_warmups_values``: if W > 0, ``_compute_values`` for W
  warmup values, then ``_compute_values`` for V values.  Every ``_compute_values`` call creates
  new hook objects, and ``pystats.__init__`` does ``sys._stats_off(); sys._stats_clear()``; each
  value is then ``with ExitStack(hooks): task_func(loops)``, i.e. ``_stats_on()`` ...
  ``_stats_off()`` around one ``common.timed(N, run)`` call (``bench_time_func``).  So the W
  warmup values *are* bracketed but their counts are cleared when the V values start; what the
  worker's dump (at its normal exit) holds is exactly V brackets of N loops each.
  (Warmups still matter: they warm up specialization before the counted values.  Use
  ``manual.py --warmups W`` to reproduce that.)
* ``--loops 0`` (pyperf's default) means calibration: extra calibration workers whose loops
  double until a value takes ``--min-time``, all bracketed.  Not supported here (exit 2).

Hence :func:`expected_bracketed_loops` = ``loops * values * processes`` summed over all dumps of a
run, ``loops * values`` per worker dump, whatever W is.

Bracket overhead: inside each bracket, besides ``common.timed`` (the same function the manual
path brackets), run the tail of ``pystats.__enter__`` / ``ExitStack.enter_context``, pyperf's
``task_func`` and ``ExitStack.__exit__`` up to ``pystats.__exit__``'s ``sys._stats_off()`` call --
a few hundred instructions, some calls and allocations per value, the same for every workload.
The ``null`` workload measures it: compare ``automated(w) - automated(null)`` with
``manual(w) - manual(null)`` (same N, V, W) for exact counter-by-counter equality of the
workload's own work (Object and GC counters and 3.13's RESUME_CHECK misses excepted: they depend
on the process's history, see configs/suite.toml).

Exit status: 0; 2 for bad arguments, ``--loops 0`` or no importable pyperf; pyperf's own status
otherwise -- e.g. 1 on an interpreter without ``sys._stats_on`` (unpatched 3.11), where the hook
raises ``HookError`` in the first worker.
"""

import functools
import os
import sys

DEFAULT_SITE = "/wheels/site"


def expected_bracketed_loops(loops, values, processes, warmups=0):
    """Benchmark loops whose counts are in the dumps of one pyperf run, summed over all workers.

    ``loops * values * processes``: each worker brackets ``values`` calls of ``run(loops)`` (and
    ``warmups`` more, whose counts pyperf's pystats hook clears before the values start).  Per
    worker dump: ``expected_bracketed_loops(loops, values, 1, warmups)``.
    """
    for name, value, low in (
        ("loops", loops, 1),
        ("values", values, 1),
        ("processes", processes, 1),
        ("warmups", warmups, 0),
    ):
        if not isinstance(value, int) or value < low:
            raise ValueError(
                "%s must be an int >= %d (loops=0 means pyperf calibration, "
                "which brackets an unknown number of loops): %r" % (name, low, value)
            )
    return loops * values * processes


def _take_option(argv, name, default):
    """Remove ``name VALUE`` / ``name=VALUE`` from argv; return VALUE (or default)."""
    value = default
    out = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
            i += 2
            continue
        if arg.startswith(name + "="):
            value = arg[len(name) + 1 :]
            i += 1
            continue
        out.append(arg)
        i += 1
    argv[:] = out
    return value


def main():
    sys.dont_write_bytecode = True  # /suite and the wheelhouse are mounted read-only
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    argv = sys.argv[1:]
    site = _take_option(argv, "--site", os.environ.get("PYSTATS_SUITE_SITE", DEFAULT_SITE))
    site = os.path.abspath(site) if site else site
    if site and os.path.isdir(site) and site not in sys.path:
        sys.path.insert(1, site)
    leak = "--leak" in argv
    argv = [a for a in argv if a != "--leak"]
    if not any(a == "--hook" or a.startswith("--hook=") for a in argv):
        argv += ["--hook", "pystats"]
    sys.argv[1:] = argv

    import common

    try:
        import pyperf
    except ImportError as exc:
        print("ERROR: cannot import pyperf (site %r): %s" % (site, exc), file=sys.stderr)
        return 2

    def add_cmdline_args(cmd, args):
        cmd.extend(("--site", site))
        if args.leak_flag:
            cmd.append("--leak")
        cmd.append(args.workload)

    runner = pyperf.Runner(program_args=("-B", os.path.abspath(__file__)), add_cmdline_args=add_cmdline_args, warmups=0)
    runner.argparser.add_argument("workload")
    runner.argparser.set_defaults(leak_flag=leak)
    args = runner.parse_args()
    if not args.worker and args.loops < 1:
        print("ERROR: give --loops N >= 1 (calibration would bracket an unknown number of loops)", file=sys.stderr)
        return 2
    inherit = list(args.inherit_environ or ())
    if "PYTHONHASHSEED" not in inherit:
        inherit.append("PYTHONHASHSEED")
    args.inherit_environ = inherit

    module = common.load(args.workload)
    setup = getattr(module, "setup", None)
    leaky = leak or getattr(module, "SETUP_IN_BRACKET", False)
    if setup is not None and not leaky:
        setup()
    if leaky:
        if setup is None:  # --leak on a workload without setup(): one extra loop per value
            setup = functools.partial(module.run, 1)
        runner.bench_time_func(args.workload, common.timed_with_setup, module.run, setup)
    else:
        runner.bench_time_func(args.workload, common.timed, module.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
