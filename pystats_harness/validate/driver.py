"""`invoke validate` and `invoke baseline` as operations: choose workloads, get the build, run every
suite run a validation needs, apply the steps, record baselines."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import ConfigError, RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.measure.runs import (
    PathRun,
    RunPath,
    Shape,
    canary_table,
    known_workloads,
    run_automated,
    run_manual,
)
from pystats_harness.measure.suiteconfig import SuiteConfig
from pystats_harness.resources import BASELINES_DIR
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate.isolation import plan_isolation, run_alone, run_at_once
from pystats_harness.validate.leakage import step_leakage
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.runs import Runs, counters
from pystats_harness.validate.steps import step_baselines, step_canaries, step_fingerprint, step_isolation
from pystats_harness.validate.threads import step_threads
from pystats_harness.validate.tier2 import traces


def choose_workloads(suite: SuiteConfig, selection: str | None) -> dict[str, int]:
    """``a,b`` -> {workload: loops}; every configured workload when nothing is chosen (None).

    A selection that names no workload (``,``) or an unknown one is a ConfigError naming them all."""
    if selection is None:
        return dict(suite.workloads)
    names = [s.strip() for s in selection.split(",") if s.strip()]
    if not names:
        raise ConfigError(
            f"--workloads {selection!r} names no workload, so nothing would be checked; "
            f"name some of {_known(suite)}, or leave --workloads out for all {len(suite.workloads)}"
        )
    chosen = {}
    for name in names:
        if name in suite.workloads:
            chosen[name] = suite.workloads[name]
        elif name in known_workloads():
            chosen[name] = min(suite.workloads.values())
        else:
            raise ConfigError(f"unknown workload {name!r}; known: {_known(suite)}")
    return chosen


def _known(suite: SuiteConfig) -> str:
    """The suite's workloads in configs/suite.toml order, then the other scripts of the suite."""
    others = [w for w in known_workloads() if w not in suite.workloads]
    return ", ".join(suite.workloads) + (f" (and {', '.join(others)})" if others else "")


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
        version, config = manifest["python"]["version"], manifest.get("configuration", "default")
        root = ctx.settings.baselines_dir
        written.append(_baseline.record(version, w, counts, lp * suite.values, meta, root, config))
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
    """The ticks of :func:`validate`: fingerprint, canary table, one per canary, the threaded canary, the
    pooled runs, and the isolation workloads' runs alone and at once."""
    pooled = 3 * (len(workloads) + len(set(workloads.values())))
    return 3 + len(suite.canaries) + pooled + 2 * len(plan_isolation(workloads, suite).workloads)


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
    plan = plan_isolation(workloads, suite)
    manifest = entry.manifest()
    version = manifest["python"]["version"]
    steps = [step_fingerprint(ctx, entry)]
    tick()
    table = json.loads(canary_table(ctx, entry))
    tick()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        threaded = pool.submit(step_threads, ctx, entry, suite, table, traces(manifest))
        steps.append(step_canaries(ctx, entry, suite, table, pool, tick, tracing=traces(manifest)))
        runs = collect_runs(ctx, entry, workloads, suite, pool, tick, leak=leak)
        steps.append(threaded.result())
        tick()
    steps.append(step_leakage(runs, workloads, suite, table, tracing=traces(manifest)))
    # after the pool: nothing else of this validation runs beside a reference
    alone = run_alone(ctx, entry, plan, suite, tick)
    steps.append(step_isolation(plan, alone, run_at_once(ctx, entry, plan, suite, tick), suite))
    config = manifest.get("configuration", "default")
    base_step, deviation = step_baselines(runs, workloads, suite, version, baselines_root, config)
    steps.append(base_step)
    meta = {
        "revision": manifest["revision"],
        "configuration": config,
        "sha": manifest["sha"],
        "python_version": version,
        "patches": [p["id"] for p in manifest["patches"]],
        "upstream": [u["describe"] for u in manifest.get("upstream", [])],
        "build_key": entry.key,
        "workloads": workloads,
        "isolation": {"at_once": list(plan.workloads), "partners": list(plan.partners)},
        "processes": suite.processes,
        "values": suite.values,
        "warmups": suite.warmups,
        "deferred_rule": table.get("deferred_rule"),
    }
    manual = {w: runs.results.get((RunPath.MANUAL, w, lp)) for w, lp in workloads.items()}
    per_loop = {w: run.per_loop for w, run in manual.items() if isinstance(run, PathRun)}
    return ValidationReport(meta, tuple(steps), deviation, per_loop)
