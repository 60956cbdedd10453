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


def load(name):
    """Import ``workloads.<name>`` (call this outside any bracket); exit 2 if there is none."""
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
