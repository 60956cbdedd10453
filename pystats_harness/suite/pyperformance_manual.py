"""Manual path for a pyperformance benchmark: ``_stats_on(); f(loops); _stats_off()`` in one process.

    python3 /suite/pyperformance_manual.py LOOPS RUNSCRIPT [EXTRA_OPTS...]

Runs the benchmark's run script as ``__main__`` (a real module in ``sys.modules``, so that
multiprocessing can pickle its functions) with ``pyperf.Runner`` replaced by a subclass whose
``bench_time_func`` / ``bench_func`` call the timed function inside one bracket instead of timing it
-- at the moment the script hands it over, inside whatever set-up the script made around that call
(e.g. a temporary directory removed right after). Everything else of the Runner -- its argument
parser, metadata, ``parse_args`` -- is pyperf's own. No warmup (as ``--warmups 0`` for the automated
path): ``f(loops, *args)`` for ``bench_time_func``, ``f(*args)`` ``loops`` times for ``bench_func``.
The process exits normally and dumps once. Prints one JSON line: the benchmark names it bracketed.

Exit status: 0; 3 when the script hands pyperf something not callable directly
(``bench_async_func``, ``bench_command``); the script's own status when it fails.
"""

import json
import os
import sys
import types


def main(argv):
    loops, runscript, extra = int(argv[0]), argv[1], argv[2:]
    import pyperf

    bracketed, not_callable = [], []

    def bracket(name, call):
        sys._stats_on()
        try:
            call()
        finally:
            sys._stats_off()
        bracketed.append(name)

    class Recorder(pyperf.Runner):
        def bench_time_func(self, name, func, *args, inner_loops=None, metadata=None):
            bracket(name, lambda: func(loops, *args))

        def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
            def repeat():
                for _ in range(loops):
                    func(*args)

            bracket(name, repeat)

        def bench_async_func(self, name, func, *args, inner_loops=None, metadata=None):
            not_callable.append(name)

        def bench_command(self, name, command):
            not_callable.append(name)

    pyperf.Runner = Recorder
    sys._stats_off()
    sys._stats_clear()
    sys.argv = [runscript, *extra]
    sys.path[0] = os.path.dirname(os.path.abspath(runscript))  # as `python runscript` has it
    main_module = types.ModuleType("__main__")
    main_module.__file__ = runscript
    sys.modules["__main__"] = main_module
    with open(runscript, encoding="utf-8") as f:
        code = compile(f.read(), runscript, "exec")
    exec(code, main_module.__dict__)
    print(json.dumps({"bracketed": bracketed, "not_callable": not_callable}))
    return 3 if not_callable or not bracketed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
