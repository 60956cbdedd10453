"""What a failed benchmark run's output says: its last lines, without the stats dump that some revisions
print to stderr at exit (3.12 development, for one), which would otherwise be all the tail shows, and its
one line: the error of the worker that failed, not pyperf's report that a worker failed."""

from __future__ import annotations

import re

#: A line of a stats dump: ``Object frees: 0``, ``Calls via PyEval_EvalFrame[1] : 0``.
STAT_LINE = re.compile(r"^[\w .,()\[\]<>/'-]+ ?: -?\d+$")
#: So many stat lines in a row are a dump (a traceback's last line, ``ValueError: 5``, is one).
DUMP_RUN = 10
#: pyperf's manager reporting a worker that failed (the worker's own traceback is printed before it).
PYPERF_WORKER_FAILED = re.compile(r"^RuntimeError: .* failed with exit code -?\d+$")
TRACEBACK = "Traceback (most recent call last):"


def without_dumps(text: str) -> list[str]:
    """Pure: the lines of ``text`` once every run of :data:`DUMP_RUN` or more stat lines is dropped."""
    kept: list[str] = []
    run: list[str] = []
    for line in [*text.strip().splitlines(), ""]:
        if STAT_LINE.match(line):
            run.append(line)
            continue
        if len(run) < DUMP_RUN:
            kept.extend(run)
        run = []
        kept.append(line)
    return kept[:-1]


def output_tail(text: str, lines: int = 30) -> str:
    """Pure: the last ``lines`` of ``text`` without its stats dumps (:func:`without_dumps`)."""
    return "\n".join(without_dumps(text)[-lines:])


def error_line(text: str) -> str:
    """Pure: the one line that says why a run failed: the output's last line (stats dumps dropped), or, where
    that is pyperf's ``RuntimeError: ... failed with exit code N`` after a worker's traceback, the worker's
    error (genshi on 3.16: ``TypeError: ast.Expression.__init__ missing 1 required positional argument``)."""
    kept = without_dumps(text)
    last = next((line for line in reversed(kept) if line.strip()), "").strip()
    starts = [i for i, line in enumerate(kept) if line.strip() == TRACEBACK]
    if not PYPERF_WORKER_FAILED.match(last) or len(starts) < 2:
        return last
    worker = next((line.strip() for line in reversed(kept[: starts[-1]]) if line.strip()), "")
    return worker or last
