"""A validation's result and how it is shown: rich tables, and as a report (:func:`to_report`): Markdown
for a CPython issue, JSON, and a PNG of how much of its allowance each workload used (validate/plot.py)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.table import Table

from pystats_harness.errors import (
    BaselineMismatch,
    CanaryMismatch,
    FingerprintFailed,
    LeakageFound,
    NoBaseline,
    ThreadsNotHeld,
    ValidationFailed,
    ValidationPartial,
)
from pystats_harness.reports import Format, Report
from pystats_harness.validate.baseline import AllowanceUse
from pystats_harness.validate.plot import figure


class Step(enum.StrEnum):
    """The steps of a validation, in the order they run and report."""

    FINGERPRINT = "fingerprint"
    CANARIES = "canaries"
    THREADS = "threads"
    LEAKAGE = "leakage"
    ISOLATION = "isolation"
    BASELINES = "baselines"


class StepStatus(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NO_BASELINE = "no baseline"
    #: all that could be checked passed, but part cannot be checked on this revision (canaries)
    PARTIAL = "partial"


FAILURES: dict[Step, type[ValidationFailed]] = {
    Step.FINGERPRINT: FingerprintFailed,
    Step.CANARIES: CanaryMismatch,
    Step.THREADS: ThreadsNotHeld,
    Step.LEAKAGE: LeakageFound,
    Step.ISOLATION: LeakageFound,
    Step.BASELINES: BaselineMismatch,
}


@dataclass(frozen=True)
class StepResult:
    step: Step
    status: StepStatus
    summary: str
    findings: tuple[dict[str, Any], ...] = ()
    #: the rules of measure/allowances.py the step used: rule, kind, counters, largest difference
    allowances: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "step", Step(self.step))
        object.__setattr__(self, "status", StepStatus(self.status))

    @property
    def ok(self) -> bool:
        return self.status is StepStatus.PASS

    @classmethod
    def judged(cls, step: Step, findings: Sequence[dict[str, Any]], *, failed: str, passed: str) -> StepResult:
        """FAIL with the ``failed`` summary when there are findings, else PASS with ``passed``."""
        if findings:
            return cls(step, StepStatus.FAIL, failed, tuple(findings))
        return cls(step, StepStatus.PASS, passed)


@dataclass(frozen=True)
class ValidationReport:
    metadata: dict[str, Any]
    steps: tuple[StepResult, ...]
    #: workload -> how much of its allowance its worst counter used against the baseline
    deviation: dict[str, AllowanceUse] = field(default_factory=dict)
    #: workload -> its manual-path counters per loop (recorded in the results store, not in validation.json)
    per_loop: dict[str, dict[str, float]] = field(default_factory=dict)

    def error(self, *, require_baseline: bool = False, strict: bool = False) -> ValidationFailed | None:
        """The first failing step, in the order of the steps, as the error to exit with.

        A version without a recorded baseline (every development commit) skips that step; it fails
        the validation only when a baseline is required. A partial step (part cannot be checked on
        this revision) fails it only when ``strict``."""
        failed = [step for step in self.steps if step.status is StepStatus.FAIL]
        if failed:
            what = "; ".join(f"{step.step}: {step.summary}" for step in failed)
            return FAILURES[failed[0].step](f"validation failed -- {what}")
        partial = self.partial_steps()
        if partial and strict:
            what = "; ".join(f"{step.step}: {step.summary}" for step in partial)
            names = ", ".join(step.step for step in partial)
            return ValidationPartial(
                f"--strict: {names} only partly checked -- {what} (without --strict: reported, not fatal)"
            )
        for step in self.steps:
            if step.status is StepStatus.NO_BASELINE and require_baseline:
                return NoBaseline(
                    f"{step.summary}; record them with `invoke baseline --rev {self.metadata['revision']}"
                    + (
                        "`"
                        if self.metadata.get("configuration", "default") == "default"
                        else f" --config {self.metadata['configuration']}`"
                    )
                )
        return None

    def partial_steps(self) -> tuple[StepResult, ...]:
        return tuple(step for step in self.steps if step.status is StepStatus.PARTIAL)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "pystats-harness/validation/1",
            "metadata": self.metadata,
            "deviation": {w: use.to_dict() for w, use in self.deviation.items()},
            "steps": [
                {
                    "step": s.step.value,
                    "status": s.status.value,
                    "summary": s.summary,
                    "findings": list(s.findings),
                    "allowances": list(s.allowances),
                }
                for s in self.steps
            ],
        }


MAX_ROWS = 40
_STYLE = {
    StepStatus.PASS: "green",
    StepStatus.FAIL: "bold red",
    StepStatus.NO_BASELINE: "yellow",
    StepStatus.PARTIAL: "yellow",
}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if not value.is_integer() else f"{int(value):,d}"
    if isinstance(value, int):
        return f"{value:,d}"
    return str(value)


def _finding_columns(step: Step) -> tuple[str, ...]:
    return {
        Step.FINGERPRINT: ("probe", "expect", "observed", "problems"),
        Step.CANARIES: ("canary", "family", "expected", "observed", "difference", "cannot_count"),
        Step.THREADS: ("threads", "worst family", "counted", "families", "runs", "counter", "expected", "observed"),
        Step.LEAKAGE: ("workload", "check", "counter", "a", "b", "note"),
        Step.ISOLATION: ("workload", "counter", "alone", "parallel"),
        Step.BASELINES: ("workload", "counter", "baseline", "value", "allowed"),
    }[step]


def _title(r: ValidationReport) -> str:
    m = r.metadata
    patches = ", ".join(m["patches"]) or "none"
    config = m.get("configuration", "default")
    named = "" if config == "default" else f", configuration {config}"
    upstream = "".join(f"; {u}" for u in m.get("upstream", []))  # "repaired with upstream 23e4f80ce2 (…)"
    return (
        f"pystats validation of {m['revision']} ({m['sha'][:12]}), Python {m['python_version']}{named}, "
        f"patches: {patches}{upstream}"
    )


def to_rich(report: ValidationReport) -> Group:
    summary = Table(title=_title(report))
    for col in ("step", "status", "summary"):
        summary.add_column(col)
    for s in report.steps:
        summary.add_row(s.step, f"[{_STYLE[s.status]}]{s.status}[/]", escape(s.summary))
    parts: list[Any] = [summary]
    for s in report.steps:
        rows = [f for f in s.findings if s.step is not Step.FINGERPRINT or not f["ok"]]
        if not rows or (s.step is Step.THREADS and s.ok):  # a passing step lists only findings that do not
            continue  # fail it (leakage: adjusted counters); exact threads: the shares are in the JSON/Markdown
        cols = _finding_columns(s.step)
        if s.step is Step.LEAKAGE:
            cols = ("workload", "check", "counter", "automated / outside", "manual / null", "note")
        t = Table(
            title=f"{s.step}: {escape(s.summary)}",
            caption=f"{len(rows) - MAX_ROWS} more in the JSON report" if len(rows) > MAX_ROWS else None,
        )
        for c in cols:
            t.add_column(c, overflow="fold")
        keys = _finding_columns(s.step)
        for f in rows[:MAX_ROWS]:
            t.add_row(
                *(
                    escape(_cell(f.get(k, ""))) if not isinstance(f.get(k), list) else escape("; ".join(f[k]))
                    for k in keys
                )
            )
        parts.append(t)
    return Group(*parts)


def to_markdown(report: ValidationReport) -> str:
    lines = [f"**{_title(report)}**", "", "| Step | Status | Summary |", "|:---|:---|:---|"]
    lines += [f"| {s.step} | {s.status} | {s.summary} |" for s in report.steps]
    for s in report.steps:
        rows = [f for f in s.findings if s.step is not Step.FINGERPRINT or not f["ok"]]
        if not rows:
            continue
        keys = _finding_columns(s.step)
        lines += [
            "",
            f"<details><summary>{s.step}: {s.summary}</summary>",
            "",
            "| " + " | ".join(keys) + " |",
            "|" + "---|" * len(keys),
        ]
        for f in rows[:MAX_ROWS]:
            lines.append("| " + " | ".join(_cell(f.get(k, "")).replace("|", "\\|") for k in keys) + " |")
        if len(rows) > MAX_ROWS:
            lines.append(f"\n_{len(rows) - MAX_ROWS} more rows in the JSON report._")
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def to_report(report: ValidationReport) -> Report:
    """validation.json, validation.md and deviation.png."""
    workloads = list(report.metadata["workloads"])
    return Report(
        files={Format.JSON: "validation.json", Format.MARKDOWN: "validation.md", Format.PNG: "deviation.png"},
        data=report.to_dict(),
        markdown=to_markdown(report),
        figure=lambda: figure(report.deviation, workloads, _title(report)),
    )
