"""No work at all: ``run`` returns at once, whatever ``loops`` is.

A path's counts for ``null`` are that path's bracket overhead (the instructions, calls and
objects between ``sys._stats_on()`` and ``sys._stats_off()`` that are not the workload, e.g.
pyperf's hook and ``ExitStack`` code, and the timed call in ``common.timed``).  Subtracting them
makes the automated and manual paths comparable counter by counter; see ``automated.py``.
"""


def run(loops):
    return None
