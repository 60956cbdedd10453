"""`invoke validate` and `invoke baseline`: build through the cache, run the suite, report."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pystats_harness.build import execute as _build
from pystats_harness.build.cache import CacheEntry, lookup
from pystats_harness.config import Settings
from pystats_harness.console import Reporter, stdout_console
from pystats_harness.errors import ConfigError, VerificationFailed
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate import report as validate_report
from pystats_harness.validate import runs as measure
from pystats_harness.validate.steps import ValidationReport, count_jobs, validate
from pystats_harness.validate.suiteconfig import SuiteConfig, load_suite


def choose_workloads(suite: SuiteConfig, selection: str | None) -> dict[str, int]:
    if not selection:
        return dict(suite.workloads)
    chosen = {}
    for name in (s.strip() for s in selection.split(",") if s.strip()):
        if name in suite.workloads:
            chosen[name] = suite.workloads[name]
        elif (measure.SUITE_DIR / "workloads" / f"{name}.py").is_file():
            chosen[name] = min(suite.workloads.values())
        else:
            raise ConfigError(
                f"unknown workload {name!r}; known: {', '.join(suite.workloads)} (and {suite.leak_workload})"
            )
    return chosen


def ensure_build(settings: Settings, rev: str, patches: str, reporter: Reporter) -> CacheEntry:
    plan = _build.plan_build(settings, rev, patches)
    entry = lookup(settings.builds_dir, plan.key)
    if entry is None:
        reporter.info(f"building {rev} ({plan.commit.short}) first")
        entry = _build.execute(settings, plan, reporter, verify_strict=patches == "auto")
    return entry


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Reporter().console,
        transient=True,
    )


def run_validate(
    settings: Settings, rev: str, patches: str, *, workloads: str | None, jobs: int, out: str | None, leak: bool = False
) -> ValidationReport:
    reporter = Reporter()
    suite = load_suite()
    chosen = choose_workloads(suite, workloads)
    try:
        entry = ensure_build(settings, rev, patches, reporter)
    except VerificationFailed as exc:
        from pystats_harness.errors import FingerprintFailed

        raise FingerprintFailed(f"validation failed at fingerprint: {exc}") from None
    with _progress() as progress:
        task = progress.add_task(f"validating {rev}", total=count_jobs(chosen, suite))
        report = validate(
            settings,
            entry,
            chosen,
            suite,
            jobs=jobs,
            tick=lambda: progress.advance(task),
            leak=leak,
            baselines_root=settings.baselines_dir,
        )
    out_dir = (
        Path(out)
        if out
        else settings.cache_dir / "validate" / f"{time.strftime('%Y%m%dT%H%M%S')}-{rev.replace('/', '_')}"
    )
    paths = validate_report.write_all(report, out_dir)
    console = stdout_console()
    console.print(validate_report.to_rich(report))
    console.print(f"report: {paths['json']}  {paths['markdown']}  {paths['plot']}")
    return report


def run_baseline(settings: Settings, rev: str, patches: str, *, workloads: str | None, jobs: int) -> list[Path]:
    """Record manual-path per-loop stats (net of the null workload) as the baselines of this version."""
    reporter = Reporter()
    suite = load_suite()
    chosen = choose_workloads(suite, workloads)
    entry = ensure_build(settings, rev, patches, reporter)
    manifest = entry.manifest()
    version = manifest["python"]["version"]
    shapes = {w: measure.Shape(lp, suite.values, suite.warmups) for w, lp in chosen.items()}
    loops_needed = sorted(set(chosen.values()))
    with _progress() as progress, ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        task = progress.add_task(f"baseline {rev}", total=len(chosen) + len(loops_needed))

        def run(item: tuple[str, measure.Shape]) -> measure.PathRun:
            try:
                return measure.run_manual(settings, entry, item[0], item[1])
            finally:
                progress.advance(task)

        nulls = dict(
            zip(
                loops_needed,
                pool.map(
                    run, [(suite.null_workload, measure.Shape(lp, suite.values, suite.warmups)) for lp in loops_needed]
                ),
                strict=False,
            )
        )
        results = dict(zip(chosen, pool.map(run, shapes.items()), strict=False))
    written = []
    for w, result in results.items():
        lp = chosen[w]
        per_loop = _baseline.net_per_loop(result.collection.counters, nulls[lp].collection.counters, lp * suite.values)
        meta = {
            "revision": rev,
            "sha": manifest["sha"],
            "commit_date": manifest["commit_date"],
            "patches": [p["id"] for p in manifest["patches"]],
            "loops": lp,
            "values": suite.values,
            "warmups": suite.warmups,
            "path": "manual",
            "net_of": suite.null_workload,
        }
        written.append(_baseline.record(version, w, per_loop, meta, settings.baselines_dir))
    out = stdout_console()
    for p in written:
        out.print(f"baseline {p}")
    return written
