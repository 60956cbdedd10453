"""The index and the run pages, planned from the store's records (pure: no file is read or written here).

``index.html`` lists the runs newest first (each linked to its page) with their verdicts, and the headline
metrics (each linked to its page; those with no stored value listed as such). ``runs/<id12>.html`` shows one
run: what ran, its parents (a diff's base and head, linked when in the store), a diff's flagged changes
first, then its units with their verdicts, reasons, loops and the headline values computed from their
counters."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pystats_harness.publish.names import code, label, number, run_stem, text
from pystats_harness.reports import Format, Report
from pystats_harness.results import RunRecord, RunSummary, Task, metrics

FLAGGED = ("benchmark", "metric", "base", "head", "change")


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return [*lines, *("| " + " | ".join(row) + " |" for row in rows), ""]


def verdicts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{text(verdict)} {n}" for verdict, n in counts.items()) or "-"


def index_page(
    runs: Sequence[RunSummary], pages: Mapping[str, str], without_values: Sequence[str], store: str
) -> Report:
    """``runs`` as listed (oldest recorded first; shown newest first), ``pages`` metric -> file stem."""
    lines = ["# pystats-harness results", "", f"{len(runs)} run(s) recorded in {code(store)}.", ""]
    lines += ["## Headline metrics", ""]
    lines += [f"- [{text(label(m))}](metrics/{stem}.html) ({code(m)})" for m, stem in pages.items()] or ["none"]
    if without_values:
        lines += ["", "No stored value, so no page: " + ", ".join(code(m) for m in without_values) + "."]
    lines += ["", "## Runs, newest first", ""]
    rows = [
        [
            f"[{run_stem(r.run_id)}](runs/{run_stem(r.run_id)}.html)",
            *(r.task.value, text(r.revision), code(r.sha[:10]), text(r.commit_date[:10]), text(r.config)),
            *(str(r.units), verdicts(r.verdicts)),
        ]
        for r in reversed(runs)
    ]
    header = ("run", "task", "revision", "sha", "commit date", "config", "units", "verdicts")
    lines += table(header, rows) if rows else ["No run is stored yet."]
    return Report({Format.HTML: "index.html"}, markdown="\n".join(lines) + "\n")


def flagged(run: RunRecord) -> list[Mapping[str, Any]]:
    """A diff's flagged changes (``extra["flagged"]``: rows of benchmark, metric, base, head, change); none
    when absent or not such a list."""
    rows = run.extra.get("flagged") if run.task is Task.DIFF else None
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []


def _flagged_row(row: Mapping[str, Any]) -> list[str]:
    """A flagged change as the diff's report.md shows it: a ratio's base and head in percent (its change is
    in percentage points), a count's per loop."""
    metric = row.get("metric")

    def side(v: object) -> str:
        if isinstance(metric, str) and isinstance(v, int | float) and not isinstance(v, bool):
            return text(metrics.shown(metric, float(v)))
        return number(v)

    return [
        number(row.get("benchmark")),
        number(metric),
        side(row.get("base")),
        side(row.get("head")),
        number(row.get("change")),
    ]


def _facts(run: RunRecord, known: Collection[str]) -> list[str]:
    def parent(run_id: str, role: str) -> str:
        if run_id in known:
            return f"{role} [{run_stem(run_id)}]({run_stem(run_id)}.html)"
        return f"{role} {code(run_id[:12])} (not in this store)"

    roles = ("base", "head") if run.task is Task.DIFF else ("parent",) * len(run.parents)
    facts = [
        ("task", run.task.value),
        ("revision", text(run.revision)),
        ("sha", code(run.sha)),
        ("commit date", text(run.commit_date)),
        ("config", text(run.config)),
        ("patches", text(", ".join(run.patches))),
        ("recorded", f"{text(run.recorded_at)} on {text(run.host)}"),
    ]
    if run.parents:
        facts.append(("parents", ", ".join(parent(p, role) for p, role in zip(run.parents, roles, strict=False))))
    return table(("run", code(run.run_id)), [list(f) for f in facts])


def run_page(run: RunRecord, known: Collection[str], columns: Sequence[str], pages: Mapping[str, str]) -> Report:
    """One run's page; ``known``: the stored run ids (parents are linked when stored), ``columns``: the
    headline metrics to show per unit (those its units have counters for), ``pages``: metric -> file stem."""
    lines = [f"# {run.task.value} of {text(run.revision)} ({text(run.sha[:10])})", "", "[all runs](../index.html)", ""]
    lines += _facts(run, known)
    if run.task is Task.DIFF:
        rows = [_flagged_row(r) for r in flagged(run)]
        lines += ["## Flagged changes", "", *(table(FLAGGED, rows) if rows else ["None flagged.", ""])]
    shown = [m for m in columns if any(set(metrics.inputs(m, u.values)) & set(u.values) for u in run.units)]
    header = ["unit", "verdict", "reason", "loops"]
    header += [f"[{text(label(m))}](../metrics/{pages[m]}.html)" if m in pages else text(label(m)) for m in shown]
    rows = [
        [text(u.name), text(u.verdict), text(u.reason), number(u.loops)]
        + [number(metrics.value(m, u.values, measured=bool(u.values))) for m in shown]
        for u in run.units
    ]
    lines += ["## Units", "", *(table(header, rows) if rows else ["No unit."])]
    return Report({Format.HTML: f"runs/{run_stem(run.run_id)}.html"}, markdown="\n".join(lines) + "\n")
