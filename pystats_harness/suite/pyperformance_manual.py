"""Manual path for a pyperformance benchmark: ``_stats_on(); f(loops); _stats_off()`` in one process.

    python3 /suite/pyperformance_manual.py LOOPS RUNSCRIPT [EXTRA_OPTS...]

Runs the benchmark's run script as ``__main__`` with ``pyperf.Runner`` replaced by a subclass whose
``bench_time_func`` / ``bench_func`` record the timed function instead of timing it (everything else
of the Runner -- its argument parser, metadata, ``parse_args`` -- is pyperf's own, so the script sets
itself up exactly as under pyperf). Then each recorded function is called inside one bracket, in
the order the script handed them over, without a warmup (as ``--warmups 0`` does for the automated
path): ``f(loops, *args)`` for ``bench_time_func``, ``f(*args)`` ``loops`` times for ``bench_func``.
The process exits normally and dumps once. Prints one JSON line: the benchmark names it bracketed.

Exit status: 0; 3 when the script hands pyperf nothing callable directly (``bench_async_func``,
``bench_command``); the script's own status when it fails.
"""

import json
import runpy
import sys


def main(argv):
    loops, runscript, extra = int(argv[0]), argv[1], argv[2:]
    import pyperf

    recorded = []

    class Recorder(pyperf.Runner):
        def bench_time_func(self, name, func, *args, inner_loops=None, metadata=None):
            recorded.append((name, "time", func, args))

        def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
            recorded.append((name, "func", func, args))

        def bench_async_func(self, name, func, *args, inner_loops=None, metadata=None):
            recorded.append((name, "async", func, args))

        def bench_command(self, name, command):
            recorded.append((name, "command", None, ()))

    pyperf.Runner = Recorder
    sys.argv = [runscript, *extra]
    runpy.run_path(runscript, run_name="__main__")
    if not recorded or any(kind in ("async", "command") for _, kind, _, _ in recorded):
        print(json.dumps({"not_callable": [name for name, _, _, _ in recorded]}))
        return 3
    sys._stats_off()
    sys._stats_clear()
    for _, kind, func, args in recorded:
        sys._stats_on()
        if kind == "time":
            func(loops, *args)
        else:
            for _ in range(loops):
                func(*args)
        sys._stats_off()
    print(json.dumps({"bracketed": [name for name, _, _, _ in recorded]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
