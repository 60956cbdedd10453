"""`invoke validate` and `invoke baseline` as operations: choose workloads, get the build, run, record."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pystats_harness.build.cache import CacheEntry
from pystats_harness.build.ensure import ensure_build
from pystats_harness.errors import ConfigError, FingerprintFailed, VerificationFailed
from pystats_harness.infra.context import Context
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate.runs import PathRun, Shape, known_workloads, run_manual
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
    try:
        return ensure_build(ctx, rev, patches)
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
    """Manual-path per-loop stats (net of the null workload) as the baselines of this Python version."""
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
        version = manifest["python"]["version"]
        written.append(_baseline.record(version, w, per_loop, meta, ctx.settings.baselines_dir))
    return written
