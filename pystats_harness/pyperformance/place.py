"""Where a benchmark runs on a build: pyperformance's data directory, the pyperf site and the
benchmark's own site (its requirements, installed once per build), or why it cannot run there; and
one benchmark's timed functions on the manual path, per loop (what a bisect or a history measures)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import ConfigError, RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.pyperformance import runs, sites
from pystats_harness.pyperformance.benchmarks import CANNOT_RUN, Benchmark
from pystats_harness.stats.collection import collect, per_loop


@dataclass(frozen=True)
class CannotRun:
    """Why a benchmark cannot run on this build: the suite says so, or a package it needs (``package``)
    cannot be installed for this interpreter."""

    reason: str
    package: str = ""


def place(ctx: Context, entry: CacheEntry, bench: Benchmark) -> runs.Place | CannotRun:
    """The benchmark's place on ``entry`` (its site made first if needed)."""
    if bench.name in CANNOT_RUN:
        return CannotRun(CANNOT_RUN[bench.name])
    pyperf_site = ctx.settings.wheelhouse_dir / "site"
    if not (pyperf_site / "pyperf").is_dir():
        raise ConfigError(
            f"no pyperf in the wheelhouse {pyperf_site}; run scripts/bootstrap.sh (it makes the wheelhouse)"
        )
    data_dir = sites.benchmark_data_dir(ctx)
    if not bench.has_requirements:
        return runs.Place(data_dir, pyperf_site, None)
    site = sites.prepare_site(ctx, entry, bench.directory)
    if isinstance(site, sites.SiteSkipped):
        return CannotRun(site.reason, site.package)
    return runs.Place(data_dir, pyperf_site, site.path, site.fallbacks)


def manual_per_loop(ctx: Context, entry: CacheEntry, bench: Benchmark, loops: int) -> tuple[dict[str, float], Path]:
    """One benchmark's timed functions on the manual path (each in its own process), per loop; the first
    run's directory. A benchmark that cannot run here is a failed run."""
    where = place(ctx, entry, bench)
    if isinstance(where, CannotRun):
        why = f"needs {where.package} ({where.reason})" if where.package else where.reason
        raise RunFailed(f"pyperformance:{bench.name} cannot run on {entry.key[:12]}: {why}")
    run = runs.manual(ctx, entry, bench, where, loops=loops)
    if not run.dumps:
        raise RunFailed(
            f"the manual run of pyperformance:{bench.name} left no stats dump (output kept in {run.runs[0].result.run_dir})"
        )
    manual = collect(list(run.dumps), entry.names(), {**entry.stats_metadata(), "loops": loops})
    return dict(per_loop(manual, loops).counters), run.runs[0].result.run_dir
