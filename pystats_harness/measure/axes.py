"""How a metric over commits is shown, in a table and on a plot's axis (bisect and history): values
with thousands separators, ticks on whole commits, long counter names wrapped."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence


def fmt_value(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "–"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,d}"
    return f"{value:.6g}"


#: at most this many labelled commit ticks on an x axis (10 inches wide: about 60 points per label)
MOST_TICKS = 12


def commit_ticks(
    indices: Sequence[int], labels: Sequence[str], *, most: int = MOST_TICKS
) -> tuple[list[int], list[str]]:
    """Ticks on whole commits: of the sorted commit ``indices`` (with their ``labels``), those at least
    1/(most - 1) of the range apart from the previous one kept; the first and the last always."""
    if not indices:
        return [], []
    gap = (indices[-1] - indices[0]) / max(1, most - 1)
    kept = [0]
    for pos in range(1, len(indices)):
        if indices[pos] - indices[kept[-1]] >= gap:
            kept.append(pos)
    last = len(indices) - 1
    if kept[-1] != last:
        if len(kept) > 1:
            kept.pop()  # too close to the last one, which is labelled instead
        kept.append(last)
    return [indices[k] for k in kept], [labels[k] for k in kept]


def wrap_name(text: str, width: int) -> str:
    """``text`` on lines of at most ``width`` characters, broken after dots and spaces (a counter name
    has no spaces); a longer piece gets a line of its own."""
    lines = [""]
    for piece in re.split(r"(?<=[.\s])", text):
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)
