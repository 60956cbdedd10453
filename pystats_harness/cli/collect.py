"""The collect task: pystats for pyperformance benchmarks, each with a trust verdict."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from invoke import Context as InvokeContext
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.cli.common import (
    CONFIG_HELP,
    PATCHES_HELP,
    REPAIRS_HELP,
    configuration,
    number,
    out_suffix,
    resolve,
)
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.cluster.client import Cluster
from pystats_harness.collect import driver, one
from pystats_harness.collect import loops as loops_file
from pystats_harness.collect import report as collect_report
from pystats_harness.collect.remote import collect_on_cluster
from pystats_harness.collect.trust import Verdict
from pystats_harness.console import stdout_console
from pystats_harness.dispatch.dispatcher import run_dispatched
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.pyperformance.benchmarks import Suite, read_suite, select
from pystats_harness.pyperformance.sites import benchmark_data_dir


def _progress(ctx: Context) -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=ctx.reporter.console, transient=True)


def run_collect(
    ctx: Context,
    rev: str | None,
    patches: str,
    config: str = "default",
    *,
    benchmarks: str,
    jobs: int,
    processes: int,
    loops: str | None,
    out: str | None,
    manual: bool = True,
) -> list[one.Outcome]:
    suite_benchmarks = read_suite(benchmark_data_dir(ctx))
    chosen = select(suite_benchmarks, benchmarks)
    fixed = loops_file.read(Path(loops)) if loops else {}
    if loops:
        loops_file.check_covers(fixed, [b.name for b in chosen], Path(loops))
    driver.check_request(chosen, jobs, processes, Path(out).resolve() if out else None)
    commit = resolve(ctx, rev)
    stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{commit.rev.replace('/', '_')}{out_suffix(config)}"
    out_dir = Path(out).resolve() if out else ctx.settings.paths.collect_outputs / stamp
    request = driver.Request(chosen, jobs, processes, fixed, out_dir, manual)
    outcomes = run_dispatched(
        ctx,
        lambda: _here(ctx, commit, (patches, config), suite_benchmarks, request),
        lambda cluster: _on_cluster(ctx, cluster, commit, (patches, config), suite_benchmarks, request),
    )
    console = stdout_console()
    named = "" if config == "default" else f" (configuration {config})"
    title = f"pystats over pyperformance {suite_benchmarks.version}: {commit.rev}{named}"
    console.print(collect_report.to_rich(outcomes, title))
    console.print(collect_report.headline(outcomes))
    meta = collect_report.read(out_dir).get("metadata", {}) if (out_dir / "report.json").is_file() else {}
    for upstream in meta.get("upstream", []):  # "repaired with upstream 23e4f80ce2 (Python/gc.c)"
        console.print(f"build: {upstream}")
    console.print(f"output: {out_dir} (report.json, trust.md, loops.json, benchmarks/<name>/)")
    return outcomes


def _line(outcome: one.Outcome, worker: str = "") -> str:
    """The progress line of a finished benchmark (``on worker-2`` when a cluster worker measured it)."""
    detail = "" if outcome.verdict is Verdict.TRUSTED else f": {collect_report.detail(outcome)}"
    where = f" on {worker}" if worker else ""
    return f"{outcome.name}: {outcome.verdict.value} ({outcome.seconds:.0f} s){where}{detail}"


def _on_cluster(
    ctx: Context,
    cluster: Cluster[Any, Any],
    commit: CommitInfo,
    recipe: tuple[str, str],
    suite_benchmarks: Suite,
    request: driver.Request,
) -> list[one.Outcome]:
    """``recipe``: (--patches, --config)."""
    with _progress(ctx) as progress:
        overall = progress.add_task(f"collecting {commit.rev} on {cluster.address}", total=len(request.benchmarks))

        def finished(outcome: one.Outcome, worker: str) -> None:
            progress.advance(overall)
            ctx.reporter.console.print(_line(outcome, worker), markup=False)

        patches, config = recipe
        return collect_on_cluster(ctx, cluster, commit, patches, suite_benchmarks, request, finished, config=config)


def _here(
    ctx: Context, commit: CommitInfo, recipe: tuple[str, str], suite_benchmarks: Suite, request: driver.Request
) -> list[one.Outcome]:
    entry = obtain(ctx, plan_for(ctx, commit, *recipe)).entry
    chosen = request.benchmarks
    with _progress(ctx) as progress:
        overall = progress.add_task(f"collecting {commit.rev}", total=len(chosen))

        def started(name: str) -> Callable[[str], None]:
            line: TaskID = progress.add_task(f"  {name}", total=None)

            def phase(what: str) -> None:
                progress.update(line, description=f"  {name}: {what}")

            phase.line = line  # type: ignore[attr-defined]
            return phase

        def finished(outcome: one.Outcome) -> None:
            for task in progress.tasks:
                if task.description.startswith(f"  {outcome.name}:") or task.description == f"  {outcome.name}":
                    progress.remove_task(task.id)
            progress.advance(overall)
            ctx.reporter.console.print(_line(outcome), markup=False)

        return driver.collect(ctx, entry, suite_benchmarks, request, load_suite(), started=started, finished=finished)


def raise_for(outcomes: list[one.Outcome], *, strict: bool = False) -> None:
    """Exit 25 when a benchmark failed to run, 26 when one is untrustworthy, 27 with ``strict`` when one
    is partial (see report.exit_error)."""
    error = collect_report.exit_error(outcomes, strict=strict)
    if error is not None:
        raise error


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision to build (if not cached) and collect (default: setting pystats.default_rev)",
        "patches": PATCHES_HELP,
        "config": CONFIG_HELP,
        "benchmarks": "default | all | a group (apps, math, …) | names, e.g. nbody,richards or default,-go (default: default)",
        "jobs": "benchmarks run at a time, each in its own container (default 2)",
        "processes": "pyperf worker processes per benchmark; 2 or more checks that workers agree (default 2)",
        "loops": "a loops file (loops.json of an earlier collect, or a pyperf result JSON); default: calibrate",
        "out": "output directory (default: <cache_dir>/collect/<stamp>-<rev>); replaced only when complete",
        "no_manual": "skip the manual-path leakage check and the net counts (verdicts become partial)",
        "strict": "exit 27 when a benchmark is partial (a check could not run)",
    }
)
def collect_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    benchmarks: str = "default",
    jobs: int = 2,
    processes: int = 2,
    loops: str | None = None,
    out: str | None = None,
    no_manual: bool = False,
    strict: bool = False,
    repairs: str | None = None,
) -> None:
    """pystats for pyperformance benchmarks, each in its own container, with a trust verdict per benchmark."""
    ctx = settings_of(c, repairs=repairs)
    outcomes = run_collect(
        ctx,
        rev,
        patches,
        configuration(ctx, config),
        benchmarks=benchmarks,
        jobs=number("jobs", jobs, int),
        processes=number("processes", processes, int),
        loops=loops,
        out=out,
        manual=not no_manual,
    )
    raise_for(outcomes, strict=strict)
