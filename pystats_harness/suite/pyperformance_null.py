"""The null benchmark: a pyperf run script whose timed functions do nothing.

    PYSTATS_NULL_SHAPES=time_func:0,func:2 python3 pyperformance_null.py [pyperf options]

One timed function per shape, in order, handed to pyperf the way a benchmark hands its own
(``bench_time_func`` / ``bench_func`` / ``bench_async_func`` with as many positional arguments as
the shape says), so that run through pyperf with ``--hook pystats`` it counts what pyperf itself
executes inside a bracket, and run through pyperformance_manual.py what the manual runner executes
inside its bracket: the overhead that ``invoke collect`` subtracts from a benchmark of the same
shapes and loops. Its own functions are called as a benchmark's are, so their call and return are
part of that overhead too.
"""

import os

KINDS = ("time_func", "func", "async_func")


def null_function(kind, nargs):
    """A function of ``nargs`` positional parameters (after ``loops`` for time_func) that does nothing."""
    params = ", ".join("a%d" % i for i in range(nargs))
    if kind == "time_func":
        source = "def null_time_func(loops%s):\n    return 1e-9\n" % (", " + params if params else "")
    elif kind == "func":
        source = "def null_func(%s):\n    pass\n" % params
    else:
        source = "async def null_async_func(%s):\n    pass\n" % params
    namespace = {}
    exec(compile(source, "<null>", "exec"), namespace)
    return next(v for k, v in namespace.items() if k.startswith("null_"))


def shapes(text):
    out = []
    for item in text.split(","):
        kind, _, nargs = item.partition(":")
        if kind not in KINDS or not nargs.isdigit():
            raise SystemExit("PYSTATS_NULL_SHAPES: expected kind:nargs with kind in %s, got %r" % (KINDS, item))
        out.append((kind, int(nargs)))
    return out


if __name__ == "__main__":
    import pyperf

    wanted = shapes(os.environ.get("PYSTATS_NULL_SHAPES", "func:0"))
    if any(kind == "async_func" for kind, _ in wanted):
        import asyncio  # noqa: F401  -- as a coroutine benchmark has: not imported inside the bracket

    runner = pyperf.Runner()
    runner.metadata["description"] = "does nothing: pyperf's and the manual runner's own overhead"
    for index, (kind, nargs) in enumerate(wanted):
        func, args = null_function(kind, nargs), tuple(range(nargs))
        name = "null-%d-%s" % (index, kind)
        if kind == "time_func":
            runner.bench_time_func(name, func, *args)
        elif kind == "func":
            runner.bench_func(name, func, *args)
        else:
            runner.bench_async_func(name, func, *args)
