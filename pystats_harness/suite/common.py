"""What ``manual.py`` and ``automated.py`` share: loading a workload and the timed call that both
of them make *inside* the bracket (so that the only in-bracket code that differs between the two
paths is the bracketing itself: pyperf's hook/``ExitStack`` code versus three lines here)."""

import importlib
import sys
import time

WARNING_NO_SWITCH = (
    "WARNING: sys._stats_on/_stats_off are missing (an unpatched 3.11 build?): running anyway, "
    "so the dump at exit covers the WHOLE process (startup, imports, setup, teardown), "
    "not only the bracketed loops"
)


def _fail(message):
    print("ERROR: " + message, file=sys.stderr)
    raise SystemExit(2)


def _load_path(path):
    """Import a workload script given by path (``/workload/x.py``, mounted by the harness)."""
    import importlib.util
    import os

    if not os.path.isfile(path):
        _fail("no workload script %r" % (path,))
    spec = importlib.util.spec_from_file_location("workload_script", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["workload_script"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken script is the user's input: say so, exit 2
        _fail("workload script %r failed to import: %s: %s" % (path, type(exc).__name__, exc))
    return module


def load(name):
    """Import ``workloads.<name>`` or a ``.py`` script path (call this outside any bracket);
    exit 2 if there is none."""
    if name.endswith(".py"):
        module = _load_path(name)
        if not hasattr(module, "run"):
            _fail("workload script %r has no run(loops)" % (name,))
        return module
    if not name.replace("_", "").isalnum():
        _fail("bad workload name: %r" % (name,))
    try:
        module = importlib.import_module("workloads." + name)
    except ImportError as exc:
        _fail("unknown workload %r: %s" % (name, exc))
    if not hasattr(module, "run"):
        _fail("workload %r has no run(loops)" % (name,))
    return module


def stats_switch():
    """``(on, off)`` when this interpreter can bracket, else ``None``."""
    on = getattr(sys, "_stats_on", None)
    off = getattr(sys, "_stats_off", None)
    if on is None or off is None:
        return None
    return on, off


LAST = [None]
"""``LAST[0]``: the result of the latest ``run`` call made through ``timed``."""


def timed(loops, run):
    """``run(loops)`` timed; pyperf's ``bench_time_func`` contract (returns seconds)."""
    t0 = time.perf_counter()
    LAST[0] = run(loops)
    return time.perf_counter() - t0


def timed_with_setup(loops, run, setup):
    """The planted leak: ``setup()`` runs inside the bracket, before the timed loops."""
    setup()
    t0 = time.perf_counter()
    LAST[0] = run(loops)
    return time.perf_counter() - t0
