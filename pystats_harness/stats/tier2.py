"""The tier-2 (optimizer and uop) lines of a pystats dump, generation by generation.

``print_optimization_stats()`` in ``Python/specialize.c`` prints them, from e561e98058 (GH-109329,
2023-10-04) on: scalar counters (``Optimization attempts: N``), three power-of-two histograms
(``Trace length[16]: N``) and per-name lines (``uops[_NAME].execution_count : N``).  ``LINES`` lists
every format string of 3.13.5, each with the commit that added it; lines were only ever added, in
place, so a generation's lines are those added at or before it (:func:`lines_of`).  Uops are always
printed by *name*: until 142502ea8d a uop whose id is below 256 by its tier-1 opcode name
(``uops[LOAD_FAST]``), later by ``_PyUOpName()`` (``uops[_LOAD_FAST]``); 3.13's summarize_stats.py
adds the underscore when it reads older dumps, and so does the harness.

The scalar lines and histograms are printed whenever the section is (zeros included); the per-name
lines only for non-zero counts.  Main printed the section in every ``--enable-pystats`` build (all
zeros unless ``-X uops`` / ``PYTHON_UOPS`` turned tier 2 on); 3.13.5 prints it only with ``_Py_TIER2``
(``--enable-experimental-jit``, also ``=interpreter``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: The histograms print_histogram() prints, as ``<name>[<1 << i>]: N`` for i in 0.._Py_UOP_HIST_SIZE-1.
HISTOGRAMS = ("Trace length", "Trace run length", "Optimized trace length")
#: ``_Py_UOP_HIST_SIZE`` (Include/cpython/pystats.h), 32 from e561e98058 to 3.13.5.
HIST_SIZE = 32


@dataclass(frozen=True)
class Generation:
    since: str  # the first commit (main history) or release that prints these lines
    date: str
    change: str


#: In order; "v3.13.5" stands for a change between main 2024-04-02 (c97d3af239) and 3.13.5, whose
#: commit the mirror's history does not hold (3.13.5 is one imported commit).
GENERATIONS = (
    Generation(
        "e561e98058", "2023-10-04", "tier-2 stats (GH-109329): attempts, traces, uops, histograms, unsupported opcodes"
    ),
    Generation("9eb2489266", "2023-10-05", "+ trace too short"),
    Generation("84b4533e84", "2023-10-30", "+ uop misses"),
    Generation("7316dfb0eb", "2023-12-12", "+ low confidence"),
    Generation("7cce857622", "2024-02-13", "+ optimizer attempts / successes / failure no memory"),
    Generation("142502ea8d", "2024-02-20", "every uop named by _PyUOpName() (leading underscore)"),
    Generation("b05afdd5ec", "2024-02-26", "+ executors invalidated"),
    Generation("50369e6c34", "2024-03-21", "+ optimizer remove globals, error_in_opcode"),
    Generation("v3.13.5", "2025-06-11", "+ uop pair counts; the section only in _Py_TIER2 builds"),
)

#: Every format string of print_optimization_stats() at 3.13.5 in print order (``%u`` = PRIu64; a
#: histogram stands for its ``[%u]`` lines), with the generation that added it.
LINES: tuple[tuple[str, str], ...] = (
    ("Optimization attempts: %u", "e561e98058"),
    ("Optimization traces created: %u", "e561e98058"),
    ("Optimization traces executed: %u", "e561e98058"),
    ("Optimization uops executed: %u", "e561e98058"),
    ("Optimization trace stack overflow: %u", "e561e98058"),
    ("Optimization trace stack underflow: %u", "e561e98058"),
    ("Optimization trace too long: %u", "e561e98058"),
    ("Optimization trace too short: %u", "9eb2489266"),
    ("Optimization inner loop: %u", "e561e98058"),
    ("Optimization recursive call: %u", "e561e98058"),
    ("Optimization low confidence: %u", "7316dfb0eb"),
    ("Executors invalidated: %u", "b05afdd5ec"),
    ("Trace length[%u]: %u", "e561e98058"),
    ("Trace run length[%u]: %u", "e561e98058"),
    ("Optimized trace length[%u]: %u", "e561e98058"),
    ("Optimization optimizer attempts: %u", "7cce857622"),
    ("Optimization optimizer successes: %u", "7cce857622"),
    ("Optimization optimizer failure no memory: %u", "7cce857622"),
    ("Optimizer remove globals builtins changed: %u", "50369e6c34"),
    ("Optimizer remove globals incorrect keys: %u", "50369e6c34"),
    ("uops[%s].execution_count : %u", "e561e98058"),
    ("uops[%s].specialization.miss : %u", "84b4533e84"),
    ("unsupported_opcode[%s].count : %u", "e561e98058"),
    ("uop[%s].pair_count[%s] : %u", "v3.13.5"),
    ("error_in_opcode[%s].count : %u", "50369e6c34"),
)

_ORDER = {g.since: i for i, g in enumerate(GENERATIONS)}


def lines_of(since: str) -> tuple[str, ...]:
    """The format strings the generation ``since`` prints, in print order."""
    top = _ORDER[since]
    return tuple(line for line, added in LINES if _ORDER[added] <= top)


def scalar_keys(since: str = "v3.13.5") -> tuple[str, ...]:
    """The keys of the lines printed whatever ran (no ``[...]`` in them), e.g. ``Optimization attempts``."""
    return tuple(line.split(":")[0] for line in lines_of(since) if "[" not in line)


def missing_for_313_script(keys: Iterable[str]) -> list[str]:
    """The scalar keys that 3.13's summarize_stats.py reads (unguarded, once ``Optimization attempts``
    is there) and ``keys`` lacks: non-empty for dumps before 50369e6c34, whose rendering by that
    script stops with a KeyError."""
    present = set(keys)
    if "Optimization attempts" not in present:
        return []
    return [key for key in scalar_keys() if key not in present]
