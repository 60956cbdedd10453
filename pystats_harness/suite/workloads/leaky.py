"""A planted leak: ``setup()`` belongs outside the bracket, but ``SETUP_IN_BRACKET`` makes
``automated.py`` call it *inside* the bracket before every value (as a buggy benchmark that
rebuilds its input inside the timed function would).  ``manual.py`` calls it outside, so the
automated path's per-loop counts exceed the manual path's by ``setup()``'s work divided by the
loops of a value: ``setup()`` is about 3 loops' worth of bytecode (measured 2.9 on 3.13.5 and 3.3
on 3.11.2), i.e. +58 % executed instructions per loop at 5 loops, +29 % at 10.  Every counter that
``setup()`` touches differs (23 execution counters on 3.13.5); the harness's leak check must flag
this workload and no other.
"""

from workloads import lcg

SETUP_IN_BRACKET = True

_TABLE = []


def setup():
    table = []
    for v in lcg(5, 80000, 1000):
        table.append((v * 7 + 3) % 1000)
    _TABLE[:] = table
    return len(table)


def one_loop(table):
    acc = 0
    for i in range(50000):
        acc += table[i] * (i & 7)
        if acc > 1000000:
            acc -= 1000000
    return acc


def run(loops):
    table = _TABLE
    result = 0
    for _ in range(loops):
        result = one_loop(table)
    return result
