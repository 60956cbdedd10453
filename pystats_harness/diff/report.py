"""A diff as shown: report.md (to paste into a pull request: the flagged changes first, then the suite
summary, then the verdicts), report.json (for machines) and summarize_stats.md (the head's own script)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from pystats_harness.collect import tier2_rates
from pystats_harness.collect.compare import Change, is_fraction
from pystats_harness.collect.report import MEANING, detail
from pystats_harness.collect.trust import Verdict
from pystats_harness.diff.result import DiffResult
from pystats_harness.reports import Format, Report
from pystats_harness.results import metrics

SCHEMA = "pystats-harness-diff/1"
#: Flagged rows in report.md (report.json has them all).
ROWS = 60


def metric_name(c: Change) -> str:
    """``LOAD_ATTR hit ratio``, ``CALL failure bound method``, ``instructions executed``."""
    if c.metric == "executed":
        return "instructions executed"
    what = (
        c.metric.replace("_ratio", " ratio")
        .replace("_share", " share")
        .replace("failure.", "failure ")
        .replace("_", " ")
    )
    return f"`{c.family}` {what}"


def value(c: Change, v: float | None) -> str:
    return metrics.shown(c.metric, v)


def change(c: Change) -> str:
    """Ratios in percentage points, counts relative to the base (``new``, ``gone``)."""
    if is_fraction(c.metric):
        return "new" if c.base is None else "gone" if c.head is None else f"{c.delta * 100:+.1f} pp"
    if not c.base or c.head is None:
        return "new" if not c.base else "gone"
    return f"{(c.head - c.base) / abs(c.base):+.1%}"


def ordered(result: DiffResult) -> list[Change]:
    """Flagged changes: benchmarks not trusted first, then by benchmark, ratios before counts, largest first."""
    trusted = {v.name: v.trusted for v in result.verdicts}
    return sorted(
        result.flagged,
        key=lambda c: (
            trusted.get(c.benchmark, False),
            c.benchmark,
            not is_fraction(c.metric),
            -round(abs(c.delta), 9),
            c.metric,
        ),
    )


def _label(meta: Mapping[str, Any]) -> str:
    config = meta.get("configuration", "default")
    named = "" if config == "default" else f", --config {config}"
    return f"{meta.get('revision', '?')} ({str(meta.get('sha', ''))[:10]}, Python {meta.get('python_version', '?')}{named})"


def _intro(result: DiffResult) -> list[str]:
    cmp, t = result.comparison, result.thresholds
    names = ", ".join(f"`{v.name}`" for v in result.verdicts)
    lines = [
        *_not_compared(result),
        f"## pystats diff: {_label(cmp.head)} vs {_label(cmp.base)}",
        "",
        f"Benchmarks {names}; both sides ran the same loops ({result.loops_source}) with {result.processes} pyperf "
        f"process(es) each. Flagged: a hit/miss/deopt ratio moving {t.ratio * 100:.0f} points or more, a count per "
        f"loop changing {t.count:.0%} or more (families with at least {t.min_share:.1%} of the instructions).",
    ]
    if result.not_trusted:
        marked = "; ".join(f"`{v.name}` ({v.mark()})" for v in result.not_trusted)
        lines += ["", f"**Not trusted on a side: {marked}.** Their rows are marked ⚠; the verdicts below say why."]
    return lines


def _not_compared(result: DiffResult) -> list[str]:
    """The report's first line when a requested benchmark did not run on a side (the diff exits 40)."""
    absent = result.not_compared
    if not absent:
        return []
    named = "; ".join(f"`{v.name}` ({v.why_not_compared()})" for v in absent)
    return [f"**Not compared ({len(absent)} of {len(result.verdicts)}): {named}.** Nothing is said of them.", ""]


def _flagged(result: DiffResult) -> list[str]:
    rows = ordered(result)
    lines = ["", f"### Flagged changes ({len(rows)})", ""]
    if not rows:
        absent = len(result.not_compared)
        if absent:
            compared = len(result.verdicts) - absent
            return [*lines, f"No interesting change in the {compared} benchmark(s) compared; {absent} not compared."]
        return [*lines, "No interesting change."]
    lines += ["| Benchmark | Metric | Base | Head | Change |", "|:---|:---|---:|---:|---:|"]
    for c in rows[:ROWS]:
        mark = result.verdicts_of(c.benchmark).mark()
        name = f"`{c.benchmark}`" + (f" ⚠ {mark}" if mark else "")
        lines.append(f"| {name} | {metric_name(c)} | {value(c, c.base)} | {value(c, c.head)} | {change(c)} |")
    if len(rows) > ROWS:
        lines.append(f"\n… and {len(rows) - ROWS} more in report.json.")
    return lines


def _executed(result: DiffResult) -> dict[str, tuple[float | None, float | None]]:
    return {c.benchmark: (c.base, c.head) for c in result.comparison.changes if c.metric == "executed"}


def _summary(result: DiffResult) -> list[str]:
    cmp, executed = result.comparison, _executed(result)
    per = {name: sum(c.benchmark == name for c in result.flagged) for name in executed}
    lines = [
        "",
        "### Suite summary",
        "",
        "| Benchmark | Instructions per loop, base | Head | Change | Flagged |",
        "|:---|---:|---:|---:|---:|",
    ]
    ratios = []
    for name, (base, head) in executed.items():
        if base and head:
            ratios.append(head / base)
        shown = f"{(head - base) / base:+.1%}" if base and head is not None else "—"
        lines.append(f"| `{name}` | {base or 0:,.0f} | {head or 0:,.0f} | {shown} | {per[name]} |")
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"| geometric mean | | | {mean - 1:+.1%} | {len(result.flagged)} |")
    lines += tier2_rates.table(cmp.tier2)
    for what, names in (("only in base", cmp.only_base), ("only in head", cmp.only_head)):
        if names:
            lines.append(f"\nWith stats {what}: {', '.join(names)}")
    return lines


def _verdicts(result: DiffResult) -> list[str]:
    first = result.not_trusted
    rows = [*first, *(v for v in result.verdicts if v not in first)]
    lines = ["", "### Verdicts", "", "| Benchmark | Base | Head | Detail |", "|:---|:---|:---|:---|"]
    present: set[Verdict] = set()
    for v in rows:
        details = "; ".join(
            f"{side}: {detail(o)}"
            for side, o in v.sides()
            if o is not None and (o.verdict is not Verdict.TRUSTED or o.site_fallbacks)
        )
        present.update(o.verdict for _, o in v.sides() if o is not None)
        cells = [o.verdict.value if o else "—" for _, o in v.sides()]
        lines.append(f"| `{v.name}` | {cells[0]} | {cells[1]} | {_short(details.replace('|', '/'))} |")
    lines += [
        "",
        "Detail: the verdict's reason on a side that is not `trusted`, or whose site took a fallback of "
        "configs/sites.toml (each side's trust.md has every check). "
        + "; ".join(f"{verdict.value}: {MEANING[verdict]}" for verdict in MEANING if verdict in present),
    ]
    return lines


def _short(text: str, limit: int = 300) -> str:
    """``text`` cut at a word before ``limit`` characters (each side's trust.md has it whole)."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " … (trust.md)"


def _files(result: DiffResult) -> list[str]:
    r = result.rendered
    shown = f"`summarize_stats.md`: {r.script} over both exports" if r.markdown is not None else r.note
    if r.markdown is not None and r.note:
        shown += f" ({r.note})"
    return ["", f"Also: {shown}; `report.json`; each side's collect in `base/` and `head/` (trust.md, loops.json)."]


def to_markdown(result: DiffResult) -> str:
    return (
        "\n".join([*_intro(result), *_flagged(result), *_summary(result), *_verdicts(result), *_files(result)]) + "\n"
    )


def flagged_part(result: DiffResult) -> str:
    """The intro and the flagged changes (what the task prints)."""
    return "\n".join([*_intro(result), *_flagged(result)]) + "\n"


def to_json(result: DiffResult) -> dict[str, Any]:
    marks = {v.name: v.mark() for v in result.verdicts}
    r = result.rendered
    return {
        "schema": SCHEMA,
        "base": dict(result.comparison.base),
        "head": dict(result.comparison.head),
        "same_build": result.same_build,
        "loops": dict(result.loops),
        "loops_source": result.loops_source,
        "processes": result.processes,
        "thresholds": asdict(result.thresholds),
        "exit_code": result.exit_code,
        "flagged": [
            {**asdict(c), "change": change(c), "not_trusted": marks.get(c.benchmark, "")} for c in ordered(result)
        ],
        "verdicts": {
            v.name: {side: (o.verdict.value if o else None) for side, o in v.sides()}
            | {"trusted": v.trusted, "compared": v.compared}
            for v in result.verdicts
        },
        "not_compared": {v.name: v.why_not_compared() for v in result.not_compared},
        "summarize_stats": {
            "script": r.script,
            "file": "summarize_stats.md" if r.markdown is not None else None,
            "note": r.note,
        },
        "outputs": {"base": str(result.paths.base), "head": str(result.paths.head)},
        "comparison": result.comparison.to_dict(),
    }


def to_report(result: DiffResult) -> Report:
    """report.md and report.json."""
    return Report({Format.JSON: "report.json", Format.MARKDOWN: "report.md"}, to_json(result), to_markdown(result))


def rendering_report(result: DiffResult) -> Report | None:
    """summarize_stats.md as the head's script printed it, under one line saying what made it."""
    r = result.rendered
    if r.markdown is None:
        return None
    cmp = result.comparison
    head = f"<!-- {r.script}: base {_label(cmp.base)} vs head {_label(cmp.head)} (all/summarize.json of each) -->\n"
    return Report({Format.MARKDOWN: "summarize_stats.md"}, markdown=head + r.markdown)
