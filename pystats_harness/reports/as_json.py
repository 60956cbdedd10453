"""The JSON format: the report's document, indented by one, ending with a newline. NaN is refused (it
is not JSON); a value JSON has no type for (a path, a date) is written as its text."""

from __future__ import annotations

import json

from pystats_harness.reports.report import Report


def render(report: Report) -> bytes | None:
    if report.data is None:
        return None
    return (json.dumps(report.data, indent=1, allow_nan=False, default=str) + "\n").encode("utf-8")
