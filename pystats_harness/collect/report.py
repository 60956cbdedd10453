"""The collect report: per benchmark a verdict and its checks, as a rich table and as a report
(:func:`to_report`: report.json and trust.md)."""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from pystats_harness.builder.cache import BuildInfo
from pystats_harness.collect.errors import CollectFailed, CollectLossy, CollectPartial, CollectUntrusted
from pystats_harness.collect.exactness import Status
from pystats_harness.collect.one import Outcome
from pystats_harness.collect.trust import Check, Verdict
from pystats_harness.pyperformance.benchmarks import Suite
from pystats_harness.reports import Format, Report

SCHEMA = "pystats-harness-collect/1"
_STYLE = {
    Verdict.TRUSTED: "green",
    Verdict.APPROXIMATE: "cyan",
    Verdict.BOUNDED: "bright_cyan",
    Verdict.PARTIAL: "yellow",
    Verdict.UNRELIABLE: "yellow",
    Verdict.LOSSY: "red",
    Verdict.SKIPPED: "yellow",
    Verdict.UNTRUSTED: "red",
    Verdict.FAILED: "red",
}
_MARK = {Status.PASS: "✓", Status.APPROXIMATE: "≈", Status.BOUNDED: "≤", Status.FAIL: "✗", Status.NOT_CHECKED: "?"}
#: What each verdict means, said once in the headline's legend and trust.md.
MEANING = {
    Verdict.TRUSTED: "every check ran and held, exactly but for the suite's named rules (each check's detail lists them)",
    Verdict.APPROXIMATE: (
        "every check ran and held, some counters only within the benchmark's declared allowance (configs/collect.toml, "
        "with its measured reason; the detail names the counter furthest apart)"
    ),
    Verdict.BOUNDED: (
        "every check ran and held, some leakage counters only within the machinery bound: the residual of pyperf's "
        "own code specializing differently beside the benchmark than in the null benchmark, measured per kind of "
        "timed function (the detail says how much of the bound was used)"
    ),
    Verdict.PARTIAL: "what ran held, but a check could not run (named, with why)",
    Verdict.UNRELIABLE: "the stats measure a wrapper, not the benchmark",
    Verdict.LOSSY: "it ran threads, and this build's counters lose updates under threads (its threaded canary)",
    Verdict.UNTRUSTED: "a check failed",
    Verdict.FAILED: "did not run",
    Verdict.SKIPPED: "cannot run here (a requirement)",
}


def counts(outcomes: Sequence[Outcome]) -> dict[str, int]:
    tally = collections.Counter(o.verdict.value for o in outcomes)
    return {v.value: tally.get(v.value, 0) for v in Verdict}


def headline(outcomes: Sequence[Outcome]) -> str:
    ran = [o for o in outcomes if o.verdict not in (Verdict.FAILED, Verdict.SKIPPED)]
    dirs = {o.directory for o in ran}
    parts = ", ".join(f"{n} {v}" for v, n in counts(outcomes).items() if n)
    return f"{len(ran)} of {len(outcomes)} benchmarks ran ({len(dirs)} benchmark directories): {parts}"


def legend(outcomes: Sequence[Outcome]) -> str:
    """What the verdicts that occur mean."""
    present = [v for v in Verdict if any(o.verdict is v for o in outcomes)]
    return "; ".join(f"{v.value}: {MEANING[v]}" for v in present)


def detail(o: Outcome) -> str:
    """What the benchmark's site installed otherwise than its lock says (first, where it did), then the
    reason, the failed checks' details, what was not checked and why, what holds only within an
    allowance, or the leakage check's numbers."""
    found = _detail(o)
    if not o.site_fallbacks:
        return found
    site = "; ".join(f"{u.package} {u.done}" for u in o.site_fallbacks)
    return f"site (configs/sites.toml): {site}; {found}"


def _detail(o: Outcome) -> str:
    if o.reason:
        return o.reason
    threads = next((c for c in o.checks if c.check is Check.THREADS), None)
    # the thread rule first where it decided the verdict (lossy), and said wherever threads ran
    first = [threads] if threads is not None and (o.verdict is Verdict.LOSSY or "ran threads" in threads.detail) else []
    for status in (Status.FAIL, Status.NOT_CHECKED, Status.APPROXIMATE, Status.BOUNDED):
        shown = first + [c for c in o.checks if c.status is status and c not in first]
        if len(shown) > len(first):
            return "; ".join(f"{c.check.value}: {c.detail}" for c in shown)
    leakage = next((c.detail for c in o.checks if c.check is Check.LEAKAGE), "")
    return "; ".join([*(f"{c.check.value}: {c.detail}" for c in first), leakage])


def to_rich(outcomes: Sequence[Outcome], title: str) -> Table:
    table = Table(title=title)
    for column in ("benchmark", "verdict", "loops", *(c.value for c in Check), "s", "detail"):
        table.add_column(column, overflow="fold")
    for o in outcomes:
        marks = {c.check: _MARK[c.status] for c in o.checks}
        table.add_row(
            o.name,
            f"[{_STYLE[o.verdict]}]{o.verdict.value}[/]",
            str(o.loops or ""),
            *(marks.get(c, "") for c in Check),
            f"{o.seconds:.0f}",
            detail(o),
        )
    return table


def to_markdown(outcomes: Sequence[Outcome], meta: Mapping[str, Any]) -> str:
    lines = [
        f"# pystats over pyperformance {meta['pyperformance']}: {meta['revision']} ({str(meta['sha'])[:12]}, Python {meta['python_version']}"
        + ("" if meta.get("configuration", "default") == "default" else f", configuration {meta['configuration']}")
        + ")",
        "",
        *(f"Built {u}: every verdict below is of that build." for u in meta.get("upstream", [])),
        headline(outcomes),
        "",
        legend(outcomes),
        "",
        "| Benchmark | Verdict | Loops | " + " | ".join(c.value for c in Check) + " | Detail |",
        "|:---|:---|---:|" + ":-:|" * len(Check) + ":---|",
    ]
    for o in outcomes:
        marks = {c.check: _MARK[c.status] for c in o.checks}
        cells = " | ".join(marks.get(c, "") for c in Check)
        text = detail(o).replace("|", "\\|").replace("\n", " ")
        lines.append(f"| `{o.name}` | {o.verdict.value} | {o.loops or ''} | {cells} | {text} |")
    return "\n".join(lines) + "\n"


def to_report(entry: BuildInfo, suite: Suite, run: Mapping[str, Any], outcomes: Sequence[Outcome]) -> Report:
    """report.json and trust.md. ``run``: how the collect ran (processes, jobs, the benchmarks selected),
    recorded as metadata."""
    meta = {**entry.stats_metadata(), "pyperformance": suite.version, **run}
    meta.setdefault("python_version", entry.manifest().get("python", {}).get("version", "?"))
    doc = {
        "schema": SCHEMA,
        "metadata": meta,
        "counts": counts(outcomes),
        "benchmarks": [o.to_dict() for o in outcomes],
    }
    return Report({Format.JSON: "report.json", Format.MARKDOWN: "trust.md"}, doc, to_markdown(outcomes, meta))


def read(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "report.json").read_text()))


def exit_error(
    outcomes: Sequence[Outcome], *, strict: bool = False
) -> CollectFailed | CollectUntrusted | CollectLossy | CollectPartial | None:
    """Failed runs first (exit 25), then untrusted stats (26), then benchmarks that ran threads on a build
    whose counters lose updates under threads (31), then, with ``strict``, benchmarks with a
    check that could not run (27). Skipped benchmarks (a requirement that cannot be installed here, said
    why) and unreliable ones (bench_command: the wrapper is measured) are reported but do not fail a
    collect: they are properties of the benchmark, not of this run."""
    failed = [o.name for o in outcomes if o.verdict is Verdict.FAILED]
    if failed:
        return CollectFailed(
            f"{len(failed)} benchmark(s) failed to run: {', '.join(failed)}; the report has their log tails"
        )
    untrusted = [o.name for o in outcomes if o.verdict is Verdict.UNTRUSTED]
    if untrusted:
        return CollectUntrusted(f"stats of {len(untrusted)} benchmark(s) are not trustworthy: {', '.join(untrusted)}")
    lossy = [o.name for o in outcomes if o.verdict is Verdict.LOSSY]
    if lossy:
        return CollectLossy(
            f"{len(lossy)} benchmark(s) ran threads on a build whose counters lose updates under threads: "
            f"{', '.join(lossy)}; the trust table gives the threaded canary's loss"
        )
    partial = [o for o in outcomes if o.verdict is Verdict.PARTIAL]
    if strict and partial:
        what = ", ".join(
            f"{o.name} ({', '.join(c.check.value for c in o.checks if c.status is Status.NOT_CHECKED)})"
            for o in partial
        )
        return CollectPartial(
            f"--strict: {len(partial)} benchmark(s) have checks that did not run: {what}; trust.md says why"
        )
    return None
