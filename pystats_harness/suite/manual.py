"""Manual path: bracket a workload with ``sys._stats_on()`` / ``sys._stats_off()`` directly.

    python3 -B /suite/manual.py WORKLOAD LOOPS [--values V] [--warmups W]

Order of events in the process::

    import workloads.WORKLOAD; setup()           # outside the bracket (stats off)
    W times: timed(LOOPS, run)                   # warmups, outside the bracket
    V times: _stats_on(); timed(LOOPS, run); _stats_off()
    exit                                         # the interpreter dumps to /tmp/py_stats

so the dump holds exactly ``V * LOOPS`` loops (``bracketed_loops``).  ``--values``/``--warmups``
mirror pyperf's options so that a manual run can match an automated worker process call for call
(pyperf clears the warmups' stats; their only lasting effect is warmed-up specialization, which
unbracketed warmups here reproduce).  The planted leak (``leaky``'s ``SETUP_IN_BRACKET``) is
ignored here on purpose: ``setup()`` always runs outside the bracket.

Comparing with ``automated.py`` (same LOOPS, values, warmups): subtract each path's ``null``
run first, see ``automated.py``.

Without ``sys._stats_on`` (an unpatched 3.11) the workload runs anyway and a warning goes to
stderr: the dump then covers the whole process.  Exit status 0 on success, 2 on bad arguments or
an unknown workload.
Stdout: ``result: <repr>``, ``bracketed_loops: <n>`` and ``seconds_per_loop: <s>`` (the best
value; timing is done inside the bracket, stats collection included).
"""

import os
import sys


def bracketed_loops(loops, values=1):
    """Loops inside brackets in one manual process: ``values * loops``."""
    return values * loops


def _parse(argv):
    import argparse

    p = argparse.ArgumentParser(prog="manual.py", description=__doc__.split("\n")[0])
    p.add_argument("workload")
    p.add_argument("loops", type=int)
    p.add_argument("--values", type=int, default=1, help="brackets, each around run(LOOPS)")
    p.add_argument("--warmups", type=int, default=0, help="unbracketed run(LOOPS) calls first")
    args = p.parse_args(argv)
    if args.loops < 1 or args.values < 1 or args.warmups < 0:
        p.error("LOOPS and --values must be >= 1, --warmups >= 0")
    return args


def main(argv=None):
    sys.dont_write_bytecode = True  # /suite is mounted read-only
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    import common

    args = _parse(sys.argv[1:] if argv is None else argv)
    module = common.load(args.workload)
    setup = getattr(module, "setup", None)
    if setup is not None:
        setup()
    run = module.run
    loops = args.loops
    timed = common.timed
    for _ in range(args.warmups):
        timed(loops, run)
    switch = common.stats_switch()
    seconds = []
    if switch is None:
        print(common.WARNING_NO_SWITCH, file=sys.stderr)
        for _ in range(args.values):
            seconds.append(timed(loops, run))
    else:
        on, off = switch
        for _ in range(args.values):
            on()
            dt = timed(loops, run)
            off()
            seconds.append(dt)
    print("result: %r" % (common.LAST[0],))
    print("bracketed_loops: %d" % bracketed_loops(loops, args.values))
    print("seconds_per_loop: %.6f" % (min(seconds) / loops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
