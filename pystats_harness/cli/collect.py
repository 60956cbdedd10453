"""The collect task: pystats for pyperformance benchmarks, each with a trust verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from invoke import Context as InvokeContext
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pystats_harness.cli.common import (
    CONFIG_HELP,
    PATCHES_HELP,
    REPAIRS_HELP,
    configuration,
    number,
)
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.collect import one
from pystats_harness.collect import report as collect_report
from pystats_harness.collect.options import CollectOptions
from pystats_harness.collect.run import CollectRequest, CollectRun, Watch, run_collect
from pystats_harness.collect.trust import Verdict
from pystats_harness.console import stdout_console
from pystats_harness.infra.context import Context


class Shown(Watch):
    """A collect drawn in the terminal: the overall bar, a line per running benchmark with its phase, and
    each finished benchmark's line (``on worker-2`` when a cluster worker measured it)."""

    def __init__(self, ctx: Context, total: int, what: str) -> None:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        self.ctx, self.progress = ctx, Progress(*columns, console=ctx.reporter.console, transient=True)
        self.overall = self.progress.add_task(what, total=total)
        self.lines: dict[str, TaskID] = {}

    def started(self, name: str) -> None:
        self.lines[name] = self.progress.add_task(f"  {name}", total=None)

    def phase(self, name: str, what: str) -> None:
        if name in self.lines:
            self.progress.update(self.lines[name], description=f"  {name}: {what}")

    def finished(self, outcome: one.Outcome, worker: str) -> None:
        if outcome.name in self.lines:
            self.progress.remove_task(self.lines.pop(outcome.name))
        self.progress.advance(self.overall)
        detail = "" if outcome.verdict is Verdict.TRUSTED else f": {collect_report.detail(outcome)}"
        where = f" on {worker}" if worker else ""
        line = f"{outcome.name}: {outcome.verdict.value} ({outcome.seconds:.0f} s){where}{detail}"
        self.ctx.reporter.console.print(line, markup=False)


def collect(ctx: Context, request: CollectRequest) -> CollectRun:
    """Run the collect, drawing it as it goes; then its table and where its output is."""
    recipe = request.recipe
    watch = Shown(ctx, len(request.request.benchmarks), f"collecting {recipe.commit.rev}")
    with watch.progress:
        run = run_collect(ctx, request, watch)
    console = stdout_console()
    named = "" if recipe.config == "default" else f" (configuration {recipe.config})"
    title = f"pystats over pyperformance {request.suite.version}: {recipe.commit.rev}{named}"
    console.print(collect_report.to_rich(run.outcomes, title))
    console.print(collect_report.headline(run.outcomes))
    for upstream in run.upstream:  # "repaired with upstream 23e4f80ce2 (Python/gc.c)"
        console.print(f"build: {upstream}")
    console.print(f"output: {run.out} (report.json, trust.md, loops.json, benchmarks/<name>/)")
    if run.run_id:
        console.print(f"recorded: run {run.run_id[:12]} in the results store (invoke results --run {run.run_id[:12]})")
    return run


#: The options collect and diff share, with their help (diff words a few for its two sides).
OPTIONS_HELP = {
    "patches": PATCHES_HELP,
    "config": CONFIG_HELP,
    "benchmarks": "default | all | a group (apps, math, …) | names, e.g. nbody,richards or default,-go (default: default)",
    "jobs": "benchmarks run at a time, each in its own container (default 2)",
    "processes": "pyperf worker processes per benchmark; 2 or more checks that workers agree (default 2)",
    "loops_file": "a loops file (loops.json of an earlier collect, or a pyperf result JSON); default: calibrate",
    "no_manual": "skip the manual-path leakage check and the net counts (verdicts become partial)",
}


def collect_options(
    ctx: Context,
    *,
    patches: str,
    config: str | None,
    benchmarks: str,
    jobs: Any,
    processes: Any,
    loops_file: str | None,
    no_manual: bool,
) -> CollectOptions:
    """The shared options as typed values (a number that is not one, an unknown configuration: exit 2)."""
    return CollectOptions(
        config=configuration(ctx, config),
        patches=patches,
        benchmarks=benchmarks,
        jobs=number("jobs", jobs, int),
        processes=number("processes", processes, int),
        loops_file=Path(loops_file) if loops_file else None,
        manual=not no_manual,
    )


def raise_for(outcomes: list[one.Outcome], *, strict: bool = False) -> None:
    """Exit 25 when a benchmark failed to run, 26 when one is untrustworthy, 27 with ``strict`` when one
    is partial (see report.exit_error)."""
    error = collect_report.exit_error(outcomes, strict=strict)
    if error is not None:
        raise error


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        **OPTIONS_HELP,
        "repairs": REPAIRS_HELP,
        "rev": "revision to build (if not cached) and collect (default: setting pystats.default_rev)",
        "out": "output directory (default: <cache_dir>/collect/<stamp>-<rev>); replaced only when complete",
        "strict": "exit 27 when a benchmark is partial (a check could not run)",
    },
    renamed={"loops": "loops_file"},  # --loops is a count of loops in bisect, history and stats
)
def collect_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    benchmarks: str = "default",
    jobs: int = 2,
    processes: int = 2,
    loops_file: str | None = None,
    out: str | None = None,
    no_manual: bool = False,
    strict: bool = False,
    repairs: str | None = None,
) -> None:
    """pystats for pyperformance benchmarks, each in its own container, with a trust verdict per benchmark."""
    ctx = settings_of(c, repairs=repairs)
    options = collect_options(
        ctx,
        patches=patches,
        config=config,
        benchmarks=benchmarks,
        jobs=jobs,
        processes=processes,
        loops_file=loops_file,
        no_manual=no_manual,
    )
    request = CollectRequest.parse(ctx, rev=rev, options=options, out=out)
    raise_for(collect(ctx, request).outcomes, strict=strict)
