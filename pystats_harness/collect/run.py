"""`invoke collect` as one capability call: the typed request (:meth:`CollectRequest.parse`: benchmarks,
loops, jobs, processes and output checked before any work), its units (the chosen benchmarks in chunks:
one here, two per worker on a cluster, so a fast worker takes more), sent through the dispatcher, each
benchmark's files written into the staging directory as its unit comes back, then the whole-run files and
the publish (``<out>.partial-<pid>``, renamed when complete; nothing on Ctrl-C); then the run recorded in
the results store.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import BuildFacts
from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect import driver, one
from pystats_harness.collect.errors import MixedBuilds
from pystats_harness.collect.options import CollectOptions
from pystats_harness.collect.recording import recorded
from pystats_harness.collect.work import CollectResult, CollectWork, chunk, write_files
from pystats_harness.dispatch.dispatcher import open_dispatcher
from pystats_harness.dispatch.units import Unit
from pystats_harness.infra.context import Context
from pystats_harness.pyperformance.benchmarks import Suite
from pystats_harness.reports import output_folder
from pystats_harness.results.recording import record_runs


@dataclass(frozen=True)
class CollectRequest:
    """A collect, typed at the edge: what to build, the suite, and the driver's request (benchmarks,
    jobs, processes, fixed loops, output directory)."""

    recipe: Recipe
    suite: Suite
    request: driver.Request

    @classmethod
    def parse(cls, ctx: Context, *, rev: str | None, options: CollectOptions, out: str | None) -> CollectRequest:
        """The options checked before any work, in :mod:`~pystats_harness.collect.options`' order (numbers and
        loops file, the revision, then the benchmarks), the output directory with the numbers; ``rev``:
        ``pystats.default_rev`` when not given."""
        out_path = Path(out).resolve() if out else None
        driver.check_request(options.jobs, options.processes, out_path)
        fixed = options.fixed_loops()
        recipe = options.recipe(ctx, rev)
        out_dir = output_folder(out_path, ctx.settings.paths.collect_outputs, recipe.commit.rev, recipe.config)
        suite, chosen = options.chosen(ctx, fixed)
        return cls(recipe, suite, options.request(chosen, fixed, out_dir))


class Watch:
    """What a collect shows while it runs (the task draws it): each benchmark as it starts, its phases,
    and its outcome once (``worker``: "" on this machine)."""

    def started(self, name: str) -> None: ...
    def phase(self, name: str, what: str) -> None: ...
    def finished(self, outcome: one.Outcome, worker: str) -> None: ...


@dataclass(frozen=True)
class CollectRun:
    outcomes: list[one.Outcome]
    out: Path
    upstream: tuple[str, ...]  # how the build was changed from upstream ("repaired with upstream …")
    run_id: str = ""  # its id in the results store ("" when the store could not take it)


def run_collect(ctx: Context, collect: CollectRequest, watch: Watch) -> CollectRun:
    """Collect where the dispatcher decides; the outcomes once the output is in place."""
    recipe, request = collect.recipe, collect.request
    with open_dispatcher(ctx) as dispatcher, driver.staged(request.out) as staging:
        units = units_for(recipe, collect.suite.version, request, dispatcher.width)
        n, u = len(request.benchmarks), len(units)
        ctx.reporter.info(
            f"collecting {recipe.commit.rev} ({recipe.commit.short}) on {dispatcher.where}: "
            f"{n} benchmark{'s' * (n != 1)} in {u} unit{'s' * (u != 1)}"
        )
        results: dict[str, tuple[one.Outcome, int | None]] = {}
        said: set[str] = set()

        def finished(outcome: one.Outcome, worker: str) -> None:
            if outcome.name not in said:
                said.add(outcome.name)
                watch.finished(outcome, worker)

        def event(message: dict[str, Any]) -> None:
            if isinstance(message.get("outcome"), bytes):
                finished(pickle.loads(message["outcome"]), str(message.get("name", "")))
            elif "started" in message:
                watch.started(str(message["started"]))
            elif "phase" in message:
                watch.phase(str(message.get("benchmark", "")), str(message["phase"]))

        every = dispatcher.run(units, lambda _, result: assemble(staging, result, results, finished), event)
        d = dispatcher
        where = run_metadata(d.where, d.width, d.unfit, every) if d.on_cluster else {}
        extra = {"revision": recipe.commit.rev, **where}
        outcomes = driver.finish(staging, one_build(every), collect.suite, request, results, extra)
    ids = record_runs(ctx, [recorded(recipe, one_build(every), outcomes, request.out)])
    return CollectRun(outcomes, request.out, upstream_lines(every), ids[0] if ids else "")


def units_for(recipe: Recipe, version: str, request: driver.Request, workers: int) -> list[Unit[CollectResult]]:
    """One unit per chunk of the request's benchmarks, each with the fixed loops of its benchmarks."""
    names = [b.name for b in request.benchmarks]
    return [
        Unit(
            recipe,
            CollectWork(
                version,
                part,
                request.jobs,
                request.processes,
                tuple((n, request.loops[n]) for n in part if n in request.loops),
                request.manual,
            ),
        )
        for part in chunk(names, workers)
    ]


def assemble(
    staging: Path,
    result: CollectResult,
    results: dict[str, tuple[one.Outcome, int | None]],
    finished: Callable[[one.Outcome, str], None],
) -> None:
    """One unit's benchmarks into ``staging/benchmarks/<name>/`` and ``results``, each said finished."""
    for bench in result.benchmarks:
        write_files(staging / "benchmarks" / bench.outcome.name, bench.files)
        results[bench.outcome.name] = (bench.outcome, bench.loops)
        finished(bench.outcome, result.worker)


def run_metadata(address: str, workers: int, unfit: dict[str, str], results: Sequence[CollectResult]) -> dict[str, Any]:
    """What report.json's metadata says about a cluster run: the workers that took units (how many) and
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
                "build_key": r.build.key,
                "seconds": {k: round(v, 1) for k, v in r.seconds.items()},
            }
            for r in results
        ],
    }


def one_build(results: Sequence[CollectResult]) -> BuildFacts:
    """The build every unit measured with; units of different builds (build keys) are never summed."""
    keys: dict[str, list[str]] = {}
    for r in results:
        keys.setdefault(r.build.key, []).append(r.worker or "this machine")
    if len(keys) > 1:
        which = "; ".join(f"{key[:16]} on {', '.join(sorted(set(workers)))}" for key, workers in sorted(keys.items()))
        raise MixedBuilds(
            f"the workers measured with different builds ({which}), so their benchmarks cannot be put in one "
            "collect; give every worker the same builder image (the build key covers its id) or collect on one worker",
            keys={key: tuple(sorted(set(workers))) for key, workers in keys.items()},
        )
    return results[0].build


def upstream_lines(results: Sequence[CollectResult]) -> tuple[str, ...]:
    """How the build was changed from upstream, as its stats metadata says (a repair)."""
    return tuple(results[0].build.stats_metadata().get("upstream", [])) if results else ()
