"""The Markdown format: the report's page, as it was composed (tables, details, notes)."""

from __future__ import annotations

from pystats_harness.reports.report import Report


def render(report: Report) -> bytes | None:
    return None if report.markdown is None else report.markdown.encode("utf-8")
