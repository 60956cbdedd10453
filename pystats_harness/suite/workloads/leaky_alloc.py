"""A planted leak that is mostly allocations: like ``leaky``, ``SETUP_IN_BRACKET`` makes
``automated.py`` call ``setup()`` inside the bracket before every value (``manual.py`` calls it
outside).  Here ``setup()`` allocates 10,000 float objects in C (``map(float, range(...))`` consumed
by a slice assignment) and runs about ten bytecode instructions of its own, so what it leaks is
almost all object counters: ``objects.allocations`` (or ``from_freelist``) grows by 10,000 per value
against an execution count that moves by a handful.  The leak check must catch it through the
object counters' measured allowance (configs/suite.toml ``[[leak_check.allow]]``), not only through
those few instructions.
"""

ALLOCATED = 10_000

_KEPT: list[float] = []


def setup():
    _KEPT[:] = map(float, range(ALLOCATED))
    return len(_KEPT)


def one_loop():
    acc = 0
    for i in range(20000):
        acc += i & 7
    return acc


def run(loops):
    result = 0
    for _ in range(loops):
        result = one_loop()
    return result


SETUP_IN_BRACKET = True
