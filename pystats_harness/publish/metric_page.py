"""A headline metric's page, planned from its stored points (pure): the plot (x: commit date, y: the value, a
point per stored unit value, coloured by verdict) and under it a table of the same points, each linked to
its run's page. A metric without a stored value gets no page (the index says so)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from pystats_harness.publish import plot
from pystats_harness.publish.names import code, label, number, run_stem, text
from pystats_harness.publish.pages import table
from pystats_harness.reports import Format, Report
from pystats_harness.results import Point

HEADER = ("commit date", "revision", "sha", "task", "config", "unit", "verdict", "value", "run")


def valued(points: Sequence[Point]) -> list[Point]:
    """The points a page shows: those with a value (a unit that measured nothing has none)."""
    return [p for p in points if p.value is not None]


def metric_page(metric: str, stem: str, points: Sequence[Point]) -> Report | None:
    """The page ``metrics/<stem>.html`` and its plot ``metrics/<stem>.png``; None when no point has a value."""
    shown = valued(points)
    if not shown:
        return None
    undated = sum(plot.commit_time(p.commit_date) is None for p in shown)
    runs = len({p.run_id for p in shown})
    lines = [f"# {text(label(metric))}", "", "[all runs](../index.html)", ""]
    lines += [f"{code(metric)}: {len(shown)} value(s) from {runs} run(s), by commit date.", ""]
    if undated < len(shown):
        lines += [f"![{text(label(metric))} over commit date]({stem}.png)", ""]
    if undated:
        lines += [f"{undated} value(s) without a commit date are in the table, not the plot.", ""]
    rows = [
        [
            *(text(p.commit_date[:19]), text(p.revision), code(p.sha[:10]), p.task.value, text(p.config)),
            *(
                text(p.unit),
                text(p.verdict),
                number(p.value),
                f"[{run_stem(p.run_id)}](../runs/{run_stem(p.run_id)}.html)",
            ),
        ]
        for p in shown
    ]
    lines += table(HEADER, rows)
    return Report(
        {Format.HTML: f"metrics/{stem}.html", Format.PNG: f"metrics/{stem}.png"},
        markdown="\n".join(lines),
        figure=partial(plot.figure, label(metric), metric if label(metric) != metric else "value per loop", shown),
    )
