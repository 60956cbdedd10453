"""What a failed benchmark run's output says: its last lines, without the stats dump that some revisions
print to stderr at exit (3.12 development, for one), which would otherwise be all the tail shows."""

from __future__ import annotations

import re

#: A line of a stats dump: ``Object frees: 0``, ``Calls via PyEval_EvalFrame[1] : 0``.
STAT_LINE = re.compile(r"^[\w .,()\[\]<>/'-]+ ?: -?\d+$")
#: So many stat lines in a row are a dump (a traceback's last line, ``ValueError: 5``, is one).
DUMP_RUN = 10


def output_tail(text: str, lines: int = 30) -> str:
    """Pure: the last ``lines`` of ``text`` once every run of :data:`DUMP_RUN` or more stat lines is dropped."""
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
    return "\n".join(kept[:-1][-lines:])
