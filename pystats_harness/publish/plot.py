"""A headline metric's figure: every stored value over its commit's date, coloured by the unit's verdict,
with a legend; a thin line joins each unit's (benchmark's, workload's) values in commit order, named at its
last point when there are few enough units to read (a matplotlib Figure on an Agg canvas; reports/as_png.py
saves it)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pystats_harness.results import Point

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: A verdict's colour: green for trusted results, red for wrong ones, orange for partial; others in turn.
COLOURS = {
    "trusted": "#2e7d32",
    "pass": "#66bb6a",
    "measured": "#1565c0",
    "partial": "#ef6c00",
    "untrusted": "#c62828",
    "fail": "#c62828",
    "lossy": "#6a1b9a",
}
OTHERS = ("#00838f", "#8d6e63", "#546e7a", "#ad1457", "#9e9d24")
#: At most this many units get their name at the end of their line (more would be unreadable).
NAMED_UNITS = 12


def commit_time(text: str) -> datetime | None:
    """An ISO 8601 commit date as an aware time (UTC when it says no zone); None when it is no date."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def colours(verdicts: Sequence[str]) -> dict[str, str]:
    found = {}
    spare = iter(OTHERS * (1 + len(verdicts) // len(OTHERS)))
    for verdict in dict.fromkeys(verdicts):
        found[verdict] = COLOURS.get(verdict) or next(spare)
    return found


def unit_lines(points: Sequence[tuple[float, float, str]]) -> dict[str, list[tuple[float, float]]]:
    """Each unit's line through (date, value) points: in date order, a date measured more than once at the
    mean of its values."""
    by_unit: dict[str, dict[float, list[float]]] = {}
    for when, value, unit in points:
        by_unit.setdefault(unit, {}).setdefault(when, []).append(value)
    return {
        unit: [(when, sum(values) / len(values)) for when, values in sorted(dates.items())]
        for unit, dates in sorted(by_unit.items())
    }


def figure(title: str, axis: str, points: Sequence[Point]) -> Figure | None:
    """The points that have a value and a commit date; None when there is none."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
    from matplotlib.figure import Figure

    dated = [(commit_time(p.commit_date), p.value, p.verdict, p.unit) for p in points]
    shown = [(float(date2num(t)), value, verdict, unit) for t, value, verdict, unit in dated if t and value is not None]
    if not shown:
        return None
    fig = Figure(figsize=(9, 4.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    lines = unit_lines([(when, value, unit) for when, value, _, unit in shown])
    named = len(lines) <= NAMED_UNITS
    if named:  # each line named at the right of its last point: room made there
        ax.margins(x=0.08)
    for unit, line in lines.items():
        ax.plot([w for w, _ in line], [v for _, v in line], color="#9e9e9e", linewidth=0.8, zorder=1)
        if named:
            ax.annotate(unit, line[-1], xytext=(4, 0), textcoords="offset points", fontsize="x-small", va="center")
    for verdict, colour in colours([v for _, _, v, _ in shown]).items():
        mine = [(when, value) for when, value, v, _ in shown if v == verdict]
        ax.scatter(
            [w for w, _ in mine],
            [v for _, v in mine],
            s=30,
            color=colour,
            alpha=0.85,
            edgecolors="white",
            linewidths=0.5,
            label=f"{verdict} ({len(mine)})",
            zorder=2,
        )
    ax.xaxis_date()
    locator = AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    ax.set(title=title, xlabel="commit date", ylabel=axis)
    ax.grid(alpha=0.3)
    ax.legend(title="verdict", fontsize="small", loc="best")
    return fig
