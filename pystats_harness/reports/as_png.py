"""The PNG format: the report's figure (a matplotlib ``Figure`` on an Agg canvas, no pyplot state),
saved tight to its content at the figure's own resolution. The only place a figure is saved."""

from __future__ import annotations

import io

from pystats_harness.reports.report import Report


def render(report: Report) -> bytes | None:
    figure = report.figure() if report.figure is not None else None
    if figure is None:
        return None
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
