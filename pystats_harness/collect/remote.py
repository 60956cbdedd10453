"""`invoke collect` on a Dask cluster, the client's side: chunk the chosen benchmarks (two chunks per
worker that takes units, so a fast worker takes more), send one unit per chunk, write each benchmark's
files into the staging directory as its chunk comes back, then the whole-run files and the publish,
exactly as a local collect does (``<out>.partial-<pid>``, renamed when complete; nothing on Ctrl-C).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import BuildFacts
from pystats_harness.cluster.client import Cluster
from pystats_harness.collect import driver, one
from pystats_harness.collect.errors import MixedBuilds
from pystats_harness.collect.unit import (
    CollectResult,
    CollectUnit,
    chunk,
    collect_unit,
    write_files,
)
from pystats_harness.dispatch.dispatcher import raise_failure
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.pyperformance.benchmarks import Suite

Finished = Callable[[one.Outcome, str], None]  # a benchmark's outcome and the worker that measured it


def units_for(
    commit: CommitInfo, patches: str, version: str, request: driver.Request, workers: int, config: str = "default"
) -> list[CollectUnit]:
    """One unit per chunk of the request's benchmarks, each with the fixed loops of its benchmarks."""
    names = [b.name for b in request.benchmarks]
    return [
        CollectUnit(
            commit,
            patches,
            version,
            part,
            request.jobs,
            request.processes,
            {n: request.loops[n] for n in part if n in request.loops},
            request.manual,
            config,
        )
        for part in chunk(names, workers)
    ]


def run_metadata(address: str, workers: int, unfit: dict[str, str], results: Sequence[CollectResult]) -> dict[str, Any]:
    """What report.json's metadata says about the cluster: the workers that took units (how many) and
    those that did not (why), who measured each benchmark, each unit."""
    return {
        "cluster": address,
        "workers": workers,
        "unfit_workers": dict(sorted(unfit.items())),
        "measured_by": {b.outcome.name: r.worker for r in results for b in r.benchmarks},
        "units": [
            {
                "worker": r.worker,
                "benchmarks": [b.outcome.name for b in r.benchmarks],
                "built": r.built,
                "build_key": r.build.key if r.build else "",
                "seconds": {k: round(v, 1) for k, v in r.seconds.items()},
            }
            for r in results
        ],
    }


def one_build(results: Sequence[CollectResult]) -> BuildFacts:
    """The build every unit measured with; units of different builds (build keys) are never summed."""
    keys: dict[str, list[str]] = {}
    for r in results:
        if r.build is not None:
            keys.setdefault(r.build.key, []).append(r.worker)
    if len(keys) > 1:
        which = "; ".join(f"{key[:16]} on {', '.join(sorted(set(workers)))}" for key, workers in sorted(keys.items()))
        raise MixedBuilds(
            f"the workers measured with different builds ({which}), so their benchmarks cannot be put in one "
            "collect; give every worker the same builder image (the build key covers its id) or collect on one worker",
            keys={key: tuple(sorted(set(workers))) for key, workers in keys.items()},
        )
    return next(r.build for r in results if r.build is not None)


class Lines:
    """Each benchmark's line once: as the worker's progress event arrives (when the benchmark ends), or
    when its unit comes back if the event did not."""

    def __init__(self, finished: Finished) -> None:
        self.finished, self.said = finished, set[str]()

    def say(self, outcome: one.Outcome, worker: str) -> None:
        if outcome.name not in self.said:
            self.said.add(outcome.name)
            self.finished(outcome, worker)

    def event(self, message: dict[str, Any]) -> None:
        if isinstance(message.get("outcome"), bytes):
            self.say(pickle.loads(message["outcome"]), str(message.get("name", "")))


def assemble(
    staging: Path, result: CollectResult, results: dict[str, tuple[one.Outcome, int | None]], finished: Finished
) -> None:
    """One unit's benchmarks into ``staging/benchmarks/<name>/`` and ``results``; a failed unit raises
    the worker's error (with its local exit code)."""
    if result.failure is not None:
        raise_failure(result.failure)
    for bench in result.benchmarks:
        write_files(staging / "benchmarks" / bench.outcome.name, bench.files)
        results[bench.outcome.name] = (bench.outcome, bench.loops)
        finished(bench.outcome, result.worker)


def collect_on_cluster(
    ctx: Context,
    cluster: Cluster[CollectUnit, CollectResult],
    commit: CommitInfo,
    patches: str,
    suite_benchmarks: Suite,
    request: driver.Request,
    finished: Finished,
    *,
    config: str = "default",
) -> list[one.Outcome]:
    """Collect on the workers of ``cluster`` (each builds configuration ``config``); the outcomes once the
    output is in place."""
    with driver.staged(request.out) as staging:
        units = units_for(commit, patches, suite_benchmarks.version, request, cluster.size, config)
        ctx.reporter.info(
            f"collecting {commit.rev} ({commit.short}) on {cluster.size} workers of {cluster.address}: {len(units)} units"
        )
        results: dict[str, tuple[one.Outcome, int | None]] = {}
        lines = Lines(finished)
        done = cluster.run_units(
            collect_unit, units, lambda _, r: assemble(staging, r, results, lines.say), on_event=lines.event
        )
        build = one_build(done)
        extra = {
            "revision": commit.rev,
            **run_metadata(cluster.address, cluster.size, cluster.workers.unfit, done),
        }  # the workers built the sha
        return driver.finish(staging, build, suite_benchmarks, request, results, extra)
