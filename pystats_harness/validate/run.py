"""`invoke validate` and `invoke baseline` as capability calls: the typed request (workloads and jobs
checked, then the revision resolved once), one unit sent through the dispatcher, and the report files
written (validation.json, validation.md, deviation.png)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from pystats_harness.builder.configurations import ConfigName
from pystats_harness.builder.recipe import Recipe
from pystats_harness.dispatch.dispatcher import open_dispatcher, this_machine
from pystats_harness.dispatch.units import Unit
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.reports import Format, output_folder, write_report
from pystats_harness.results.recording import record_runs
from pystats_harness.validate import report as validate_report
from pystats_harness.validate.driver import choose_workloads, count_jobs
from pystats_harness.validate.recording import recorded
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.work import BaselineWork, ValidateWork

Tick = Callable[[], None]  # one suite run done


@dataclass(frozen=True)
class ValidateRequest:
    recipe: Recipe
    workloads: tuple[tuple[str, int], ...]
    jobs: int
    out: Path
    leak: bool = False  # plant a leak in the automated runs (tests of the leakage step)

    @classmethod
    def parse(
        cls,
        ctx: Context,
        *,
        rev: str | None,
        patches: str,
        config: ConfigName,
        workloads: str | None,
        jobs: int,
        out: str | None = None,
        leak: bool = False,
    ) -> ValidateRequest:
        """The workloads and jobs checked, then the revision resolved once (``pystats.default_rev`` when
        not given)."""
        chosen = tuple(choose_workloads(load_suite(), workloads).items())
        if jobs < 1:
            raise ConfigError(f"--jobs must be at least 1 (got {jobs})")
        recipe = Recipe.resolve(ctx, rev, patches, config)
        folder = output_folder(
            Path(out) if out else None, ctx.settings.paths.validate_reports, recipe.commit.rev, config
        )
        return cls(recipe, chosen, jobs, folder, leak)

    def suite_runs(self) -> int:
        """How many suite runs the validation makes (its progress total)."""
        return count_jobs(dict(self.workloads), load_suite())


@dataclass(frozen=True)
class ValidateRun:
    report: ValidationReport
    files: dict[Format, Path]  # json, markdown, png
    where: str  # "" on this machine; else the worker, whether it built, how long each part took
    run_id: str = ""  # its id in the results store ("" when the store could not take it)


def run_validate(ctx: Context, request: ValidateRequest, tick: Tick) -> ValidateRun:
    """Validate where the dispatcher decides; the report, written into ``request.out``."""
    recipe = request.recipe
    with open_dispatcher(ctx) as dispatcher:
        if dispatcher.on_cluster:
            ctx.reporter.info(f"validating {recipe.commit.rev} ({recipe.commit.short}) on {dispatcher.where}")
        unit = Unit(recipe, ValidateWork(request.workloads, request.jobs, request.leak))
        (result,) = dispatcher.run([unit], on_event=lambda message: tick() if "tick" in message else None)
        cluster = {"worker": result.worker, "cluster": dispatcher.where} if dispatcher.on_cluster else {}
    report = replace(result.report, metadata={**result.report.metadata, "revision": recipe.commit.rev, **cluster})
    where = ""
    if cluster:
        how = "built there" if result.built else "a build-cache hit there"
        took = " + ".join(f"{k} {v:.0f} s" for k, v in result.seconds.items())
        where = f"validated on {result.worker} ({how}; {took})"
    files = write_report(validate_report.to_report(report), request.out)
    ids = record_runs(ctx, [recorded(recipe, report, [str(p) for p in files.values()])])
    return ValidateRun(report, files, where, ids[0] if ids else "")


def run_baseline(ctx: Context, request: ValidateRequest, tick: Tick) -> list[Path]:
    """Record manual-path per-loop stats (net of the null workload) as the baselines of this version
    (configs/baselines/<version>/, or <version>-<config>/ for another configuration than the default),
    on this machine: the baselines are files of this repository."""
    work = BaselineWork(request.recipe.commit.rev, request.workloads, request.jobs)
    (written,) = this_machine(ctx).run([Unit(request.recipe, work)], on_event=lambda message: tick())
    return written
