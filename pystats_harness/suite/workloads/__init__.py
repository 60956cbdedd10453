"""Workloads: each module has ``run(loops: int) -> object`` doing the same fixed work per loop.

Optional module attributes:

* ``setup()`` -- called once by every driver *outside* the bracket before the first ``run``
  (``run`` must not depend on it having been called more than once).
* ``SETUP_IN_BRACKET = True`` -- the planted leak (``leaky``): ``automated.py`` then calls
  ``setup()`` *inside* the bracket before every value, as a buggy benchmark would.

Rules every workload follows so that per-loop counts are linear in ``loops``:

* all inputs are built at import time from fixed seeds (``lcg``), never from ``random``/time;
* one loop builds only fresh objects and leaves nothing behind (no caches that warm up in loop 1,
  no reference cycles, so everything is freed by reference counting inside the same loop);
* nothing iterates over a set/dict of ``str`` whose order would depend on ``PYTHONHASHSEED``.
"""

NAMES = (
    "nbody",
    "richards",
    "fannkuch",
    "spectral_norm",
    "json_roundtrip",
    "regex",
    "classes",
    "generators",
    "strings",
)
"""The benchmark workloads (the :data:`PROBES` are not benchmarks)."""

PROBES = ("null", "leaky", "leaky_alloc")
"""Harness probes: the null workload and the planted leaks (instructions; allocations)."""

ALL = NAMES + PROBES


def lcg(seed, count, modulus=2**31):
    """``count`` pseudo-random ints in ``[0, modulus)`` from a fixed linear congruential generator."""
    out = []
    x = seed
    for _ in range(count):
        x = (1103515245 * x + 12345) % 2**31
        out.append(x % modulus)
    return out
