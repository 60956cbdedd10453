"""Collect one benchmark: its requirements, loops, the automated run, the manual run, the null
benchmark of its shapes, the verdict, and its files under ``<out>/benchmarks/<name>/``:
collection.json, summary.md, summarize.json and dumps/ (raw: pyperf's own code inside each bracket
included), net/ (the same three without it, when the null benchmark ran), manual/ (the manual path's
dumps, one per timed function) and null/ (the null's dumps, automated/ and manual/)."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import BuildInfo, CacheEntry
from pystats_harness.collect import exactness, overhead, trust, workers
from pystats_harness.collect.overhead import NullRuns
from pystats_harness.collect.threads import ThreadUse, check_threads
from pystats_harness.errors import HarnessError, RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.measure import threads as _threads
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.suiteconfig import SuiteConfig
from pystats_harness.pyperformance import runs
from pystats_harness.pyperformance.benchmarks import Benchmark
from pystats_harness.pyperformance.fallbacks import Used
from pystats_harness.pyperformance.runs import BenchmarkRunFailed, Place
from pystats_harness.reports import write_report
from pystats_harness.stats.collection import Collection, per_loop
from pystats_harness.stats.outputs import collection_report
from pystats_harness.stats.summarize_json import summarize_json, write_summarize_json

Phase = Callable[[str], None]
#: Findings kept per check in report.json (every differing counter of a large benchmark fits).
FINDINGS_KEPT = 5000


@dataclass(frozen=True)
class Options:
    processes: int
    manual: bool = True
    #: benchmarks whose work varies between processes (configs/collect.toml), with their allowance
    declared: Mapping[str, exactness.Allowance] = field(default_factory=dict)
    #: the build's deferred rule (measure/deferred.py), read from its source; None: not known
    deferred: DeferredRule | None = None
    #: configs/collect.toml [machinery.<kind>]: the leakage residual allowed per kind of timed function
    machinery: Mapping[str, exactness.MachineryShare] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What became of one benchmark (the row of the trust table)."""

    name: str
    directory: str
    verdict: trust.Verdict
    checks: tuple[trust.CheckResult, ...] = ()
    loops: int | None = None
    functions: tuple[str, ...] = ()
    seconds: float = 0.0
    reason: str = ""
    log_tail: str = ""
    #: what the benchmark's site installed otherwise than its lock says (configs/sites.toml)
    site_fallbacks: tuple[Used, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            **({"site_fallbacks": [u.to_dict() for u in self.site_fallbacks]} if self.site_fallbacks else {}),
            "name": self.name,
            "directory": self.directory,
            "verdict": self.verdict.value,
            "loops": self.loops,
            "functions": list(self.functions),
            "seconds": round(self.seconds, 2),
            "reason": self.reason,
            "log_tail": self.log_tail,
            "checks": [
                {
                    "check": c.check.value,
                    "status": c.status.value,
                    "detail": c.detail,
                    "findings": list(c.findings[:FINDINGS_KEPT]),
                }
                for c in self.checks
            ],
        }


@dataclass(frozen=True)
class Measured:
    """The automated run of one benchmark: its kept dumps, per-worker and total counters."""

    dumps: tuple[Path, ...]
    per_dump: tuple[dict[str, int], ...]
    total: dict[str, int]
    functions: tuple[str, ...]

    @property
    def nonempty(self) -> list[dict[str, int]]:
        return [c for c in self.per_dump if any(c.values())]


def _leakage(
    ctx: Context,
    entry: CacheEntry,
    bench: Benchmark,
    place: Place,
    loops: int,
    measured: Measured,
    checks: Sequence[trust.CheckResult],
    out: Path,
    options: Options,
    nulls: NullRuns,
    phase: Phase,
) -> tuple[trust.LeakCounts | None, str, tuple[ThreadUse, ...] | None]:
    """The automated path's counts and the manual path's plus pyperf's overhead (the null benchmark of
    each timed function's shape, both ways), or why they could not be measured; and what the manual
    path measured of each timed function's threads (None: it did not run)."""
    if not options.manual:
        return None, "not checked: --no-manual", None
    if any(c.status is exactness.Status.FAIL for c in checks if c.check in (trust.Check.EMPTY, trust.Check.WRAPPER)):
        return None, "not checked: nothing of the benchmark's own to compare (see the checks that failed)", None
    phase("manual path")
    try:
        manual = runs.manual(ctx, entry, bench, place, loops=loops)
    except BenchmarkRunFailed as exc:
        return None, f"not checked: the manual path failed ({exc})", None
    found = [ThreadUse.from_report(r, name) for r, name in zip(manual.reports, measured.functions, strict=False)]
    uses = tuple(u for u in found if u is not None) if found and None not in found else None
    if len(manual.dumps) != len(manual.runs):
        return None, f"not checked: the manual path left {len(manual.dumps)} dumps for {len(manual.runs)} runs", uses
    if len(manual.shapes) != len(measured.functions):
        why = (
            f"the manual path bracketed {len(manual.shapes)} timed function(s), pyperf timed {len(measured.functions)}"
        )
        return None, f"not checked: {why}", uses
    phase("null benchmark")
    try:
        used = [nulls.get(shape, loops, options.processes) for shape in manual.shapes]
    except RunFailed as exc:
        return None, f"not checked: the null benchmark failed ({exc})", uses
    null_auto = overhead.keep([d for n in used for d in n.automated], out / "null" / "automated")
    null_manual = overhead.keep([d for n in used for d in n.manual], out / "null" / "manual")
    pyperf_code = overhead.counters(entry, null_auto)  # over every worker of every timed function
    _write_net(entry, bench, measured, (null_auto, pyperf_code), manual.shapes, loops, options.processes, out / "net")
    by_hand = overhead.counters(entry, overhead.keep(manual.dumps, out / "manual"))
    counts = overhead.leak_counts(
        measured.total,
        pyperf_code,
        by_hand,
        overhead.counters(entry, null_manual),
        options.processes,
        len(measured.functions),
        manual.shapes,
        options.machinery,
    )
    return counts, "", uses


def _write_net(
    entry: BuildInfo,
    bench: Benchmark,
    measured: Measured,
    null: tuple[Sequence[Path], Mapping[str, int]],
    shapes: Sequence[str],
    loops: int,
    processes: int,
    into: Path,
) -> None:
    """The benchmark's collection and summarize_stats export without pyperf's code inside the brackets."""
    bracketed = loops * processes * len(measured.functions)
    origin = {
        "benchmark": bench.name,
        "loops": bracketed,
        "counts": "net",
        "net_of": NET_OF.format(shapes=",".join(shapes), loops=loops, processes=processes),
    }
    null_dumps, null_counters = null
    net = overhead.subtract(measured.total, null_counters)
    into.mkdir(parents=True, exist_ok=True)
    collection = Collection({**entry.stats_metadata(), **origin}, net)
    write_report(collection_report(collection, per_loop(collection)), into)
    export_net(entry, measured.dumps, null_dumps, origin, into / "summarize.json")


NET_OF = (
    "the null benchmark ({shapes}) at {loops} loops over {processes} worker(s) per timed function: pyperf's "
    "hook, task and loop code inside each bracket, and the null's own call and return"
)
RAW = "raw: pyperf's own code inside each bracket included (net/ has the counts without it)"


def measure(
    ctx: Context,
    entry: CacheEntry,
    bench: Benchmark,
    place: Place,
    loops: int,
    out: Path,
    options: Options,
    suite: SuiteConfig,
    phase: Phase,
    nulls: NullRuns,
) -> Outcome:
    start = time.perf_counter()
    phase("pyperf --hook pystats")
    run = runs.automated(ctx, entry, bench, place, out / "pyperf", loops=loops, processes=options.processes)
    dumps = tuple(overhead.keep(run.dumps, out / "dumps"))
    per_dump = tuple(overhead.counters(entry, [d]) for d in dumps)
    total: dict[str, int] = functools.reduce(overhead.add, per_dump, dict[str, int]())
    measured = Measured(dumps, per_dump, total, runs.timed_names(run.pyperf or {}) or (bench.name,))
    bracketed = loops * options.processes * len(measured.functions)
    meta = {
        **entry.stats_metadata(),
        "nfiles": len(dumps),
        "benchmark": bench.name,
        "path": "automated",
        "loops": bracketed,
        "processes": options.processes,
        "counts": RAW,
    }
    collection = Collection(meta, total)
    write_report(collection_report(collection, per_loop(collection) if total else None), out)
    rules = exactness.Rules(suite, options.declared.get(bench.name), deferred=options.deferred)
    expected = options.processes * len(measured.functions)
    why_not_grouped = (
        "" if len(measured.nonempty) == expected else "not checked: the dumps are not one per worker (see dumps)"
    )
    checks = [
        trust.check_dumps(len(measured.nonempty), expected, workers.why_no_dump(entry)),
        trust.check_agreement(
            workers.groups(measured.nonempty, len(measured.functions), options.processes), rules, why_not_grouped
        ),
        trust.check_wrapper(bench),
        trust.check_empty(total, len(dumps)),
    ]
    if total:
        export(entry, dumps, {"benchmark": bench.name, "loops": bracketed, "counts": RAW}, out / "summarize.json")
    net, why_not, uses = _leakage(ctx, entry, bench, place, loops, measured, checks, out, options, nulls, phase)
    checks.append(_stated(entry, trust.check_leakage(net, why_not, rules)))
    checks.append(check_threads(uses, functools.partial(_threads.held, ctx, entry, suite.threads)))
    return Outcome(
        bench.name,
        bench.directory,
        trust.verdict(checks),
        tuple(checks),
        loops,
        measured.functions,
        time.perf_counter() - start,
        site_fallbacks=place.fallbacks,
    )


def _stated(entry: BuildInfo, check: trust.CheckResult) -> trust.CheckResult:
    """On a free-threaded build, the check says what process state its object counters depend on."""
    if not runs.same_thread_state(entry):
        return check
    return dataclasses.replace(check, detail=f"{check.detail} ({runs.THREAD_STATE_NOTE})")


def export(entry: BuildInfo, dumps: Sequence[Path], origin: Mapping[str, Any], path: Path) -> None:
    """The summarize_stats-compatible JSON of ``dumps`` (named from the build's own tables)."""
    names = entry.names()
    if names is not None and dumps:
        write_summarize_json(dumps, names, {**entry.stats_metadata(), **origin}, path)


def export_net(
    entry: BuildInfo, dumps: Sequence[Path], null_dumps: Sequence[Path], origin: Mapping[str, Any], path: Path
) -> None:
    """The summarize_stats-compatible JSON of ``dumps`` less ``null_dumps`` (raw keys subtracted)."""
    names = entry.names()
    if names is not None and dumps:
        doc = summarize_json(overhead.net_dump(dumps, null_dumps), names, {**entry.stats_metadata(), **origin})
        write_json_atomic(path, doc)


def failed(bench: Benchmark, exc: HarnessError, seconds: float, loops: int | None = None) -> Outcome:
    tail = exc.log_tail if isinstance(exc, BenchmarkRunFailed) else ""
    return Outcome(
        bench.name, bench.directory, trust.Verdict.FAILED, loops=loops, seconds=seconds, reason=str(exc), log_tail=tail
    )


def failed_before(bench: Benchmark, why: str) -> Outcome:
    """A benchmark that was not run because the interpreter cannot run it (said why, one line)."""
    return Outcome(bench.name, bench.directory, trust.Verdict.FAILED, reason=why)


def skipped(bench: Benchmark, package: str, why: str) -> Outcome:
    return Outcome(bench.name, bench.directory, trust.Verdict.SKIPPED, reason=f"skipped: needs {package} ({why})")
