"""Render a bisect: a summary line, a rich table, Markdown, JSON (and back); the PNG is in plot.py.

Commit subjects and dates come from the caller (:class:`CommitInfo`, keyed by sha); the search
itself only knows shas.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pystats_harness.bisect.confirm import Confirmation
from pystats_harness.bisect.judge import Judge, Verdict
from pystats_harness.bisect.search import BisectResult, Tested
from pystats_harness.errors import ConfigError
from pystats_harness.measure.axes import fmt_value
from pystats_harness.measure.outcome import Failure, Outcome

if TYPE_CHECKING:
    from rich.table import Table

BISECT_SCHEMA = "pystats-harness/bisect/1"


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    subject: str = ""
    date: str = ""  # ISO 8601 commit date
    upstream: str = ""  # how its build was changed: "repaired with upstream 23e4f80ce2 (Python/gc.c)"

    @property
    def build_note(self) -> str:
        return f" [{self.upstream}]" if self.upstream else ""


@dataclass(frozen=True)
class BisectReport:
    """A :class:`BisectResult` plus what it was about."""

    result: BisectResult
    metric: str
    workload: str = ""
    good_rev: str = ""
    bad_rev: str = ""
    commit_info: Mapping[str, CommitInfo] = field(default_factory=dict)
    configuration: str = "default"  # the build configuration every commit was built in
    confirmation: Confirmation | None = None  # the culprit re-measured and reverted (None: not recorded)

    @property
    def config_note(self) -> str:
        """What titles add for another configuration than the default (" (configuration tier2)")."""
        return "" if self.configuration == "default" else f" (configuration {self.configuration})"

    def info(self, index: int) -> CommitInfo:
        sha = self.result.commits[index]
        return self.commit_info.get(sha) or CommitInfo(sha)


def _commit_line(info: CommitInfo) -> str:
    parts = [info.sha[:12]]
    if info.date:
        parts.append(info.date[:10])
    if info.subject:
        parts.append(info.subject)
    return " ".join(parts) + info.build_note


def summary(report: BisectReport) -> str:
    """One line (two when ambiguous): where the metric changed."""
    r = report.result
    before, after = r.at(r.last_good), r.at(r.earliest_bad)
    change = (
        f"{report.metric}: {fmt_value(before.value if before else None)} → {fmt_value(after.value if after else None)}"
        f" ({r.judge.describe()})"
    )
    if r.exact:
        return f"first bad commit: {_commit_line(report.info(r.earliest_bad))}; {change}"
    skipped = len(r.candidates) - 1
    return (
        f"first bad commit is one of {len(r.candidates)} (after {report.info(r.last_good).sha[:12]}, "
        f"up to and including {report.info(r.earliest_bad).sha[:12]}); {skipped} commit"
        f"{'s' if skipped != 1 else ''} in between could not be measured; {change}"
    )


def _rows(report: BisectReport) -> list[tuple[Tested, CommitInfo]]:
    return [(t, report.info(t.index)) for t in report.result.tested]


def _status(t: Tested) -> str:
    return f"skipped: {t.reason}" if t.status == "skipped" else t.status


def to_rich(report: BisectReport) -> Table:
    from rich.markup import escape
    from rich.table import Table

    r = report.result
    table = Table(
        title=f"bisect {escape(report.metric)}"
        + (f" on {escape(report.workload)}" if report.workload else "")
        + report.config_note,
        caption=escape(summary(report)),
    )
    for title, justify in (
        ("#", "right"),
        ("step", "right"),
        ("commit", "left"),
        ("date", "left"),
        ("subject", "left"),
        ("value", "right"),
        ("status", "left"),
    ):
        table.add_column(title, justify=justify, overflow="fold")  # type: ignore[arg-type]
    styles = {"good": "green", "bad": "red", "skipped": "yellow"}
    for t, info in _rows(report):
        marker = " ◀ first bad" if r.exact and t.index == r.earliest_bad else ""
        style = styles[t.status]
        table.add_row(
            str(t.index),
            str(t.step) if t.step else "–",
            t.sha[:12],
            info.date[:10],
            escape(info.subject[:60]) + (f"[yellow]{escape(info.build_note)}[/]" if info.upstream else ""),
            fmt_value(t.value),
            f"[{style}]{escape(_status(t))}[/{style}]{marker}",
            style="bold" if marker else None,
        )
    return table


def to_markdown(report: BisectReport) -> str:
    r = report.result
    lines = [
        f"**bisect** `{report.metric}`"
        + (f" on `{report.workload}`" if report.workload else "")
        + report.config_note
        + (f": good {report.good_rev} → bad {report.bad_rev}" if report.good_rev or report.bad_rev else ""),
        "",
        summary(report),
        "",
        *([f"Confirmation: {report.confirmation.line()}", ""] if report.confirmation else []),
        f"{len(r.commits)} commits on the path, {r.measurements} measured by the search "
        f"(+2 endpoints), {len(r.skipped)} skipped; threshold {r.judge.threshold:.6g}, "
        f"direction {r.judge.direction}.",
        "",
        "| # | Commit | Date | Subject | Value | Status |",
        "|---:|:---|:---|:---|---:|:---|",
    ]
    for t, info in _rows(report):
        subject = (info.subject + info.build_note).replace("|", "\\|")
        status = _status(t).replace("|", "\\|")
        if r.exact and t.index == r.earliest_bad:
            status = f"**{status} (first bad)**"
        lines.append(f"| {t.index} | `{t.sha[:12]}` | {info.date[:10]} | {subject} | {fmt_value(t.value)} | {status} |")
    return "\n".join(lines) + "\n"


# --- JSON ---------------------------------------------------------------------------------------------


def _info_json(report: BisectReport, index: int) -> dict[str, Any]:
    info = report.info(index)
    return {"index": index, "sha": info.sha, "subject": info.subject, "date": info.date, "upstream": info.upstream}


def to_dict(report: BisectReport) -> dict[str, Any]:
    r = report.result
    j = r.judge
    return {
        "schema": BISECT_SCHEMA,
        "metric": report.metric,
        "workload": report.workload,
        "configuration": report.configuration,
        "good_rev": report.good_rev,
        "bad_rev": report.bad_rev,
        "judge": {
            "good_value": j.good_value,
            "bad_value": j.bad_value,
            "threshold": j.threshold,
            "direction": j.direction,
            "threshold_explicit": j.threshold_explicit,
        },
        "first_bad": _info_json(report, r.earliest_bad) if r.exact else None,
        "candidates": [_info_json(report, i) for i in r.candidates],
        "last_good": r.last_good,
        "earliest_bad": r.earliest_bad,
        "exact": r.exact,
        "measurements": r.measurements,
        "rounds": r.rounds,
        "n_commits": len(r.commits),
        "tested": [
            {
                **_info_json(report, t.index),
                "step": t.step,
                "status": t.status,
                "value": t.value,
                "failure": t.outcome.failure,
                "detail": t.outcome.detail,
            }
            for t in r.tested
        ],
        "skipped": [{"index": t.index, "sha": t.sha, "reason": t.reason} for t in r.skipped],
        "commits": list(r.commits),
        "summary": summary(report),
        "confirmation": report.confirmation.to_dict() if report.confirmation else None,
    }


def to_json(report: BisectReport) -> str:
    return json.dumps(to_dict(report), indent=1, allow_nan=False)


def from_json(text: str | Mapping[str, Any]) -> BisectReport:
    """Read back what :func:`to_json` wrote."""
    doc = json.loads(text) if isinstance(text, str) else text
    if not isinstance(doc, Mapping) or doc.get("schema") != BISECT_SCHEMA:
        raise ConfigError(f"not a bisect result of schema {BISECT_SCHEMA!r}")
    j = doc["judge"]
    judge = Judge(
        float(j["good_value"]),
        float(j["bad_value"]),
        float(j["threshold"]),
        j["direction"],
        bool(j.get("threshold_explicit")),
    )
    tested = tuple(
        Tested(
            int(t["index"]),
            t["sha"],
            Outcome.failed(t["failure"] or Failure.METRIC_UNDEFINED, t.get("detail") or "")
            if t["status"] == Verdict.SKIPPED
            else Outcome.ok(t["value"], t.get("detail") or ""),
            Verdict(t["status"]),
            int(t["step"]),
        )
        for t in doc["tested"]
    )
    result = BisectResult(
        tuple(doc["commits"]),
        judge,
        tested,
        int(doc["last_good"]),
        int(doc["earliest_bad"]),
        int(doc["measurements"]),
        rounds=int(doc.get("rounds", 0)),
    )
    infos = {
        t["sha"]: CommitInfo(t["sha"], t.get("subject") or "", t.get("date") or "", t.get("upstream") or "")
        for t in [*doc["tested"], *doc["candidates"]]
    }
    revs = (doc.get("good_rev") or "", doc.get("bad_rev") or "")
    config = doc.get("configuration") or "default"
    confirmation = Confirmation.from_dict(doc["confirmation"]) if doc.get("confirmation") else None
    return BisectReport(result, doc["metric"], doc.get("workload") or "", *revs, infos, config, confirmation)
