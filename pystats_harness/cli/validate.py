"""The validate tasks: validate (is this build's stats trustworthy?) and baseline (record per-loop stats)."""

from __future__ import annotations

from pathlib import Path

from invoke import Context as InvokeContext
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pystats_harness.cli.common import CONFIG_HELP, PATCHES_HELP, REPAIRS_HELP, configuration
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.console import stdout_console
from pystats_harness.infra.context import Context
from pystats_harness.validate import report as validate_report
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.run import ValidateRequest, run_baseline, run_validate


def _progress(ctx: Context) -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=ctx.reporter.console, transient=True)


def validate(ctx: Context, request: ValidateRequest, *, strict: bool = False) -> ValidationReport:
    """Validate with a progress bar; then the report's table and where its files are."""
    with _progress(ctx) as progress:
        task = progress.add_task(f"validating {request.recipe.commit.rev}", total=request.suite_runs())
        run = run_validate(ctx, request, lambda: progress.advance(task))
    console = stdout_console()
    console.print(validate_report.to_rich(run.report))
    if run.where:
        console.print(run.where)
    console.print("report: " + "  ".join(str(path) for path in run.files.values()))
    if run.run_id:
        console.print(f"recorded: run {run.run_id[:12]} in the results store (invoke results --run {run.run_id[:12]})")
    partial = ", ".join(step.step for step in run.report.partial_steps())
    if partial and not strict:
        ctx.reporter.warn(f"partial, not pass: {partial} only partly checked (see above); --strict makes it fail")
    return run.report


def baseline(ctx: Context, request: ValidateRequest) -> list[Path]:
    """Record the baselines with a progress bar; then each file written."""
    with _progress(ctx) as progress:
        total = len(request.workloads) + len({loops for _, loops in request.workloads})
        task = progress.add_task(f"baseline {request.recipe.commit.rev}", total=total)
        written = run_baseline(ctx, request, lambda: progress.advance(task))
    out = stdout_console()
    for p in written:
        out.print(f"baseline {p}")
    return written


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision (default: setting pystats.default_rev); built first if not cached",
        "patches": PATCHES_HELP,
        "config": CONFIG_HELP,
        "workloads": "comma-separated suite workloads (default: all in configs/suite.toml); isolation adds a partner from the suite when fewer than two are chosen",
        "jobs": "parallel containers (default 2); isolation starts its two to four workloads at once regardless",
        "out": "directory for validation.json, validation.md and deviation.png",
        "require_baseline": "fail (exit 24) when no baseline is recorded for this Python version; without it the baselines step is skipped for such versions (every development commit)",
        "strict": "fail (exit 19) when a step is partial (canaries that cannot be counted statically on this revision); without it a partial step is reported, not fatal",
    }
)
def validate_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    workloads: str | None = None,
    jobs: int = 2,
    out: str | None = None,
    require_baseline: bool = False,
    strict: bool = False,
    repairs: str | None = None,
) -> None:
    """Prove the stats of a build are reliable: fingerprint, canaries, threads, leakage, isolation, baselines."""
    ctx = settings_of(c, repairs=repairs)
    request = ValidateRequest.parse(
        ctx, rev=rev, patches=patches, config=configuration(ctx, config), workloads=workloads, jobs=int(jobs), out=out
    )
    report = validate(ctx, request, strict=strict)
    error = report.error(require_baseline=require_baseline, strict=strict)
    if error is not None:
        raise error


@harness_task(
    help={
        "rev": "revision (default: setting pystats.default_rev); built first if not cached",
        "patches": PATCHES_HELP,
        "config": CONFIG_HELP + "; another than default records into configs/baselines/<version>-<config>/",
        "workloads": "comma-separated suite workloads (default: all)",
        "jobs": "parallel containers (default 2)",
    }
)
def baseline_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    workloads: str | None = None,
    jobs: int = 2,
) -> None:
    """Record per-loop manual-path stats into configs/baselines/<python version>[-<config>]/<workload>.json."""
    ctx = settings_of(c)
    request = ValidateRequest.parse(
        ctx, rev=rev, patches=patches, config=configuration(ctx, config), workloads=workloads, jobs=int(jobs)
    )
    baseline(ctx, request)
