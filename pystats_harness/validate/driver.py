"""`invoke validate` and `invoke baseline` as operations: choose workloads, get the build, run every
suite run a validation needs, apply the steps, record baselines."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pystats_harness.build.cache import CacheEntry
from pystats_harness.build.ensure import obtain_build
from pystats_harness.errors import ConfigError, FingerprintFailed, RunFailed, VerificationFailed
from pystats_harness.infra.context import Context
from pystats_harness.resources import BASELINES_DIR
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.runs import (
    PathRun,
    RunPath,
    Shape,
    canary_table,
    known_workloads,
    run_automated,
    run_manual,
)
from pystats_harness.validate.steps import (
    Runs,
    counters,
    step_baselines,
    step_canaries,
    step_fingerprint,
    step_isolation,
    step_leakage,
)
from pystats_harness.validate.suiteconfig import SuiteConfig


def choose_workloads(suite: SuiteConfig, selection: str | None) -> dict[str, int]:
    """``a,b`` -> {workload: loops}; every configured workload when nothing is chosen."""
    if not selection:
        return dict(suite.workloads)
    chosen = {}
    for name in (s.strip() for s in selection.split(",") if s.strip()):
        if name in suite.workloads:
            chosen[name] = suite.workloads[name]
        elif name in known_workloads():
            chosen[name] = min(suite.workloads.values())
        else:
            raise ConfigError(
                f"unknown workload {name!r}; known: {', '.join(suite.workloads)} (and {suite.leak_workload})"
            )
    return chosen


def build_for_validation(ctx: Context, rev: str, patches: str) -> CacheEntry:
    """The build to validate; a build that fails its fingerprint fails the validation's first step."""
    return obtain_build_for_validation(ctx, rev, patches)[0]


def obtain_build_for_validation(ctx: Context, rev: str, patches: str) -> tuple[CacheEntry, bool]:
    """:func:`build_for_validation`, and whether a build ran (False: a build-cache hit)."""
    try:
        return obtain_build(ctx, rev, patches)
    except VerificationFailed as exc:
        raise FingerprintFailed(f"validation failed at fingerprint: {exc}") from None


def record_baselines(
    ctx: Context,
    entry: CacheEntry,
    rev: str,
    chosen: dict[str, int],
    suite: SuiteConfig,
    *,
    jobs: int,
    tick: Callable[[], None],
) -> list[Path]:
    """Manual-path counts (net of the null workload, exact) as the baselines of this Python version."""
    manifest = entry.manifest()
    loops_needed = sorted(set(chosen.values()))

    def run(item: tuple[str, int]) -> PathRun:
        try:
            return run_manual(ctx, entry, item[0], Shape(item[1], suite.values, suite.warmups))
        finally:
            tick()

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        null_runs = list(pool.map(run, [(suite.null_workload, lp) for lp in loops_needed]))
        results = dict(zip(chosen, pool.map(run, chosen.items()), strict=True))
    nulls = dict(zip(loops_needed, null_runs, strict=True))
    written = []
    for w, result in results.items():
        lp = chosen[w]
        counts = _baseline.net_counts(counters(result), counters(nulls[lp]))
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
        version = manifest["python"]["version"]
        written.append(_baseline.record(version, w, counts, lp * suite.values, meta, ctx.settings.baselines_dir))
    return written


def collect_runs(
    ctx: Context,
    entry: CacheEntry,
    workloads: dict[str, int],
    suite: SuiteConfig,
    pool: ThreadPoolExecutor,
    tick: Callable[[], None],
    *,
    leak: bool = False,
) -> Runs:
    """Manual runs at N and 2N and automated runs at N, for every workload and the null workload."""
    jobs: list[tuple[RunPath, str, int]] = []
    for w, loops in {**workloads, suite.null_workload: 0}.items():
        for lp in sorted({lp for lp in ([loops] if w != suite.null_workload else list(workloads.values()))}):
            jobs += [(RunPath.MANUAL, w, lp), (RunPath.MANUAL, w, 2 * lp), (RunPath.AUTOMATED, w, lp)]

    def one(job: tuple[RunPath, str, int]) -> PathRun | RunFailed:
        path, w, lp = job
        shape = Shape(lp, suite.values, suite.warmups, suite.processes if path is RunPath.AUTOMATED else 1)
        try:
            if path is RunPath.MANUAL:
                return run_manual(ctx, entry, w, shape)
            return run_automated(ctx, entry, w, shape, leak=leak and w != suite.null_workload)
        except RunFailed as exc:
            return exc
        finally:
            tick()

    return Runs(dict(zip(jobs, pool.map(one, jobs), strict=True)))


def count_jobs(workloads: dict[str, int], suite: SuiteConfig) -> int:
    return 3 * (len(workloads) + len(set(workloads.values()))) + 2 * len(suite.canaries) + min(4, len(workloads)) + 2


def validate(
    ctx: Context,
    entry: CacheEntry,
    workloads: dict[str, int],
    suite: SuiteConfig,
    *,
    jobs: int,
    tick: Callable[[], None],
    baselines_root: Path = BASELINES_DIR,
    leak: bool = False,
) -> ValidationReport:
    manifest = entry.manifest()
    version = manifest["python"]["version"]
    steps = [step_fingerprint(ctx, entry)]
    tick()
    table = json.loads(canary_table(ctx, entry))
    tick()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        steps.append(step_canaries(ctx, entry, suite, table, pool, tick))
        runs = collect_runs(ctx, entry, workloads, suite, pool, tick, leak=leak)
    steps.append(step_leakage(runs, workloads, suite, table))
    chosen = dict(list(workloads.items())[:4])
    with ThreadPoolExecutor(max_workers=len(chosen) or 1) as pool:

        def alone(item: tuple[str, int]) -> PathRun | RunFailed:
            try:
                return run_manual(ctx, entry, item[0], Shape(item[1], suite.values, suite.warmups))
            except RunFailed as exc:
                return exc
            finally:
                tick()

        parallel = dict(zip(chosen, pool.map(alone, chosen.items()), strict=True))
    steps.append(step_isolation(runs, parallel, suite))
    base_step, deviation = step_baselines(runs, workloads, suite, version, baselines_root)
    steps.append(base_step)
    meta = {
        "revision": manifest["revision"],
        "sha": manifest["sha"],
        "python_version": version,
        "patches": [p["id"] for p in manifest["patches"]],
        "build_key": entry.key,
        "workloads": workloads,
        "processes": suite.processes,
        "values": suite.values,
        "warmups": suite.warmups,
        "deferred_rule": table.get("deferred_rule"),
    }
    return ValidationReport(meta, tuple(steps), deviation)
