"""Collect one benchmark: its requirements, loops, the automated run, the manual run, the verdict,
and its files under ``<out>/benchmarks/<name>/`` (collection.json, summary.md, dumps/)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.build.cache import BuildInfo, CacheEntry
from pystats_harness.collect import runs, trust
from pystats_harness.collect.benchmarks import Benchmark
from pystats_harness.collect.runs import BenchmarkRunFailed, BenchRun, Place
from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_text_atomic
from pystats_harness.stats import summary
from pystats_harness.stats.collection import Collection, aggregate, collect, per_loop, save
from pystats_harness.stats.summarize_json import write_summarize_json
from pystats_harness.validate.suiteconfig import SuiteConfig

Phase = Callable[[str], None]


@dataclass(frozen=True)
class Options:
    processes: int
    manual: bool = True
    tolerances: trust.Tolerances = field(default_factory=trust.Tolerances)


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

    def to_dict(self) -> dict[str, Any]:
        return {
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
                    "findings": list(c.findings[:50]),
                }
                for c in self.checks
            ],
        }


def _dump_collections(entry: CacheEntry, dumps: Sequence[Path], loops: int) -> list[Collection]:
    meta = {**entry.stats_metadata(), "loops": loops}
    return [collect([d], entry.names(), meta) for d in dumps]


def _groups(nonempty: Sequence[Collection], functions: int, processes: int) -> list[list[Mapping[str, float]]]:
    """Workers of one timed function are consecutive (pyperf runs each function's workers in turn)."""
    if len(nonempty) != functions * processes:
        return []
    return [[c.counters for c in nonempty[i * processes : (i + 1) * processes]] for i in range(functions)]


def _keep(run: BenchRun, into: Path) -> list[Path]:
    into.mkdir(parents=True, exist_ok=True)
    kept = []
    for i, dump in enumerate(run.dumps):
        target = into / f"{i:03d}-{dump.name}"
        shutil.copyfile(dump, target)
        kept.append(target)
    return kept


def _manual(
    ctx: Context, entry: CacheEntry, bench: Benchmark, place: Place, loops: int, functions: int
) -> tuple[Mapping[str, float] | None, str]:
    if not bench.directly_callable:
        return None, f"timed function not callable directly ({bench.timing.value})"
    try:
        run = runs.manual(ctx, entry, bench, place, loops=loops)
    except BenchmarkRunFailed as exc:
        return None, f"not checked: the manual path failed ({exc})"
    if not run.dumps:
        return None, "not checked: the manual run left no dump"
    manual = collect(list(run.dumps), entry.names(), {**entry.stats_metadata(), "loops": loops})
    return per_loop(manual, loops).counters, ""


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
) -> Outcome:
    start = time.perf_counter()
    phase("pyperf --hook pystats")
    run = runs.automated(ctx, entry, bench, place, out / "pyperf", loops=loops, processes=options.processes)
    functions = runs.timed_names(run.pyperf or {}) or (bench.name,)
    dumps = _keep(run, out / "dumps")
    per_dump = _dump_collections(entry, dumps, loops)
    nonempty = [c for c in per_dump if any(c.counters.values())]
    bracketed = loops * options.processes * len(functions)
    meta = {"benchmark": bench.name, "path": "automated", "loops": bracketed, "processes": options.processes}
    total = aggregate(per_dump) if per_dump else Collection({**entry.stats_metadata(), "nfiles": 0}, {})
    total = Collection({**total.metadata, **meta}, total.counters, total.unknown)
    save(total, out / "collection.json")
    checks = [
        trust.check_dumps(len(nonempty), options.processes * len(functions)),
        trust.check_agreement(_groups(nonempty, len(functions), options.processes), suite, options.tolerances),
        trust.check_wrapper(bench),
        trust.check_empty(total.counters, len(per_dump)),
    ]
    if total.counters:
        write_text_atomic(out / "summary.md", summary.to_markdown(per_loop(total)))
        export(entry, dumps, {"benchmark": bench.name, "loops": bracketed}, out / "summarize.json")
    manual, why_not = None, "skipped (--no-manual)"
    if options.manual and checks[-1].status is trust.Status.PASS:
        phase("manual path")
        manual, why_not = _manual(ctx, entry, bench, place, loops, len(functions))
    auto_per_loop = {k: v / (options.processes * loops) for k, v in total.counters.items()}
    checks.append(trust.check_leakage(auto_per_loop, manual, why_not, options.tolerances))
    return Outcome(
        bench.name, bench.directory, trust.verdict(checks), tuple(checks), loops, functions, time.perf_counter() - start
    )


def export(entry: BuildInfo, dumps: Sequence[Path], origin: Mapping[str, Any], path: Path) -> None:
    """The summarize_stats-compatible JSON of ``dumps`` (named from the build's own tables)."""
    names = entry.names()
    if names is not None and dumps:
        write_summarize_json(dumps, names, {**entry.stats_metadata(), **origin}, path)


def failed(bench: Benchmark, exc: HarnessError, seconds: float, loops: int | None = None) -> Outcome:
    tail = exc.log_tail if isinstance(exc, BenchmarkRunFailed) else ""
    return Outcome(
        bench.name, bench.directory, trust.Verdict.FAILED, loops=loops, seconds=seconds, reason=str(exc), log_tail=tail
    )


def skipped(bench: Benchmark, package: str, why: str) -> Outcome:
    return Outcome(bench.name, bench.directory, trust.Verdict.SKIPPED, reason=f"skipped: needs {package} ({why})")
