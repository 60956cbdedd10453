"""Manual path for a pyperformance benchmark: ``_stats_on(); f(loops); _stats_off()`` in one process.

    [PYSTATS_MANUAL_ONLY=K] python3 /suite/pyperformance_manual.py LOOPS RUNSCRIPT [EXTRA_OPTS...]

Runs the benchmark's run script as ``__main__`` (a real module in ``sys.modules``, so that
multiprocessing can pickle its functions) with ``pyperf.Runner`` replaced by a subclass whose
``bench_time_func`` / ``bench_func`` / ``bench_async_func`` call the timed function inside one
bracket instead of timing it -- at the moment the script hands it over, inside whatever set-up the
script made around that call (e.g. a temporary directory removed right after). Everything else of
the Runner -- its argument parser, metadata, ``parse_args`` -- is pyperf's own. No warmup (as
``--warmups 0`` for the automated path). Inside the bracket the timed function is driven the way
pyperf's worker drives it (``f(loops, *args)``; a local ``for`` over ``range(loops)`` calling ``f``
or ``functools.partial(f, *args)``; the same in a coroutine on a new event loop), without pyperf's
worker, hooks or timing around it, so that the loop's own instructions specialize as in pyperf; what
the bracket itself costs is measured by the null benchmark (pyperformance_null.py) run the same way.
Only the K-th timed function the script hands over (default 0) is bracketed and called, the others are
passed over, as a pyperf worker runs only its own task: each timed function in a fresh process.
The process exits normally and dumps once. Prints one JSON line: the name it bracketed, and the names
and shapes (``kind:nargs``, the null benchmark's argument) of every timed function the script has, and
``threads``: the CPU seconds the process's other threads used while stats were on (process CPU time
less the main thread's, read outside the bracket: nothing of it is counted, no hook rewrites bytecode)
and how many threads had Python frames when the bracket ended.

Exit status: 0; 3 when the script hands pyperf something not callable directly (``bench_command``)
or nothing; the script's own status when it fails.
"""

import builtins
import contextlib
import functools
import io
import json
import os
import sys
import time
import types


def time_func_task(func, args, loops):
    return lambda: func(loops, *args)


def func_task(func, args, loops):
    if args:
        func = functools.partial(func, *args)

    def task():
        local_timer = time.perf_counter
        local_func = func
        if loops != 1:
            range_it = range(loops)
            t0 = local_timer()
            for _ in range_it:
                local_func()
            return local_timer() - t0
        t0 = local_timer()
        local_func()
        return local_timer() - t0

    return task


def async_func_task(func, args, loops, loop_factory=None):
    if args:
        func = functools.partial(func, *args)

    def task():
        import asyncio

        if loops != 1:

            async def main():
                local_timer = time.perf_counter
                local_func = func
                range_it = range(loops)
                t0 = local_timer()
                for _ in range_it:
                    await local_func()
                return local_timer() - t0

        else:

            async def main():
                local_timer = time.perf_counter
                local_func = func
                t0 = local_timer()
                await local_func()
                return local_timer() - t0

        loop = asyncio.new_event_loop() if loop_factory is None else loop_factory()
        asyncio.set_event_loop(loop)
        try:
            return loop.run_until_complete(main())
        finally:
            asyncio.set_event_loop(None)
            loop.close()

    return task


def prepare_as_worker(runner):
    """What a pyperf worker does between parsing its command line and its bracket: CPU affinity and
    priority (nothing without their options) and looking up its hooks through the entry points
    (importlib.metadata, which fills the re module's cache); the pystats hook's own set-up only turns
    collection off and clears it, which it is already. Private parts of pyperf: skipped where a pyperf
    version lacks them."""
    for step in ("_cpu_affinity", "_process_priority"):
        if runner is not None and hasattr(runner, step):
            getattr(runner, step)()
    try:
        from pyperf._hooks import instantiate_selected_hooks
    except ImportError:
        return
    instantiate_selected_hooks(["pystats"])


def _anew(obj, memo):
    """``obj`` with every string of more than one character in it (in the constants of nested code
    objects, tuples and frozensets) a new, not interned object; one-character strings are the
    interpreter's own singletons either way."""
    kind = type(obj)
    if kind is str:
        if len(obj) > 1 and obj not in memo:
            memo[obj] = obj.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")
        return memo.get(obj, obj)
    if kind is tuple:
        return tuple(_anew(x, memo) for x in obj)
    if kind is frozenset:
        return frozenset(_anew(x, memo) for x in obj)
    if isinstance(obj, types.CodeType):
        return obj.replace(co_consts=_anew(obj.co_consts, memo))
    return obj


def as_a_script_is(code):
    """compile()'s code with its constants made as ``python runscript`` makes them, on a free-threaded
    build: which of them are immortal decides whether LOAD_CONST's increfs are counted. compile() turns
    the build's immortalization of code constants off while it runs (gh-118527), and on 3.13 that makes
    it intern (and so immortalize) every string constant, where a script's code interns only those that
    look like identifiers ('>Q' is mortal there). Its strings made anew and the code made again by
    marshal outside compile(), every constant is interned, or not, by the build's own rule, as the
    worker's are."""
    import marshal

    return marshal.loads(marshal.dumps(_anew(code, {})))


def as_a_worker_parses(runner, parsed, parse):
    """The options a pyperf worker parses: not its master's command line but what the script's
    ``add_cmdline_args`` writes of the master's options, as strings, parsed again (chaos's ``--thickness
    0.25``: the worker's float is made by float(), the master's default is a code constant, immortal on a
    free-threaded build, so its decrefs count in the worker only). ``parse``: the Runner's own."""
    add = getattr(runner, "_add_cmdline_args", None)
    if add is None:
        return parsed
    cmd = []
    add(cmd, parsed)
    runner.args = None
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return parse(cmd)
    except SystemExit:
        # The master writes the worker's options when it starts one, from the options as the script
        # left them by then (bm_pickle sets --protocol after parsing; its default None is no int): what
        # the script will leave cannot be known yet, so the master's own parse stands.
        runner.args = parsed
        return parsed


def parsing_as_a_worker(base):
    """A Runner's ``parse_args`` that parses, when called without arguments, what a worker would
    (:func:`as_a_worker_parses`), once; ``base``: pyperf's Runner."""

    def parse_args(self, args=None):
        if self.args is not None and args is None:
            return self.args
        parsed = base.parse_args(self, args)
        if args is not None:
            return parsed
        return as_a_worker_parses(self, parsed, lambda cmd: base.parse_args(self, cmd))

    return parse_args


def run_as_main(runscript, extra):
    """Run the script as ``python runscript EXTRA`` would: argv, path and a ``__main__`` whose dict is
    set up as the interpreter sets it up, in that order."""
    sys.argv = [runscript, *extra]
    sys.path[0] = os.path.dirname(os.path.abspath(runscript))
    main_module = types.ModuleType("__main__")
    main_module.__builtins__ = builtins
    main_module.__file__ = runscript
    main_module.__cached__ = None
    sys.modules["__main__"] = main_module
    with open(runscript, encoding="utf-8") as f:
        code = compile(f.read(), runscript, "exec")
    import sysconfig

    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        code = as_a_script_is(code)
    exec(code, main_module.__dict__)


def main(argv):
    loops, runscript, extra = int(argv[0]), argv[1], argv[2:]
    import pyperf

    only = int(os.environ.get("PYSTATS_MANUAL_ONLY", "0"))
    bracketed, names, shapes, not_callable, threads = [], [], [], [], {}

    def bracket(name, shape, task):
        names.append(name)
        shapes.append(shape)
        if len(names) - 1 != only:
            return
        prepare_as_worker(runners[-1] if runners else None)
        process, main_thread = time.process_time(), time.thread_time()
        sys._stats_on()
        try:
            task()
        finally:
            sys._stats_off()
            main_thread, process = time.thread_time() - main_thread, time.process_time() - process
        bracketed.append(name)
        threads.update(other_cpu_seconds=max(0.0, process - main_thread), alive_after=len(sys._current_frames()))

    runners = []

    class Recorder(pyperf.Runner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            runners.append(self)

        parse_args = parsing_as_a_worker(pyperf.Runner)

        # Each parses the command line first, as pyperf's own methods do (argparse and the re module
        # then hold what they hold in a pyperf worker when its bracket starts).
        def bench_time_func(self, name, func, *args, inner_loops=None, metadata=None):
            self.parse_args()
            bracket(name, "time_func:%d" % len(args), time_func_task(func, args, loops))

        def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
            self.parse_args()
            bracket(name, "func:%d" % len(args), func_task(func, args, loops))

        def bench_async_func(self, name, func, *args, inner_loops=None, metadata=None, loop_factory=None):
            self.parse_args()
            task = async_func_task(func, args, loops, loop_factory)
            bracket(name, "async_func:%d" % len(args), task)

        def bench_command(self, name, command):
            self.parse_args()
            names.append(name)
            shapes.append("command:0")
            not_callable.append(name)

    pyperf.Runner = Recorder
    sys._stats_off()
    sys._stats_clear()
    run_as_main(runscript, extra)
    report = {"bracketed": bracketed, "timed": names, "shapes": shapes, "not_callable": not_callable}
    print(json.dumps({**report, "threads": threads}))
    return 3 if not_callable or not bracketed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
