"""The diff task: two revisions built, collected with the same loops and processes, and compared."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from invoke import Context as InvokeContext

from pystats_harness.cli.collect import OPTIONS_HELP, Shown, collect_options
from pystats_harness.cli.common import CONFIG_HELP, PATCHES_HELP, REPAIRS_HELP, number
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.collect import report as collect_report
from pystats_harness.collect.run import CollectRequest, Watch
from pystats_harness.console import stdout_console
from pystats_harness.diff import report
from pystats_harness.diff.plan import DiffRequest, describe
from pystats_harness.diff.result import DiffResult
from pystats_harness.diff.run import run_diff
from pystats_harness.infra.context import Context


def diff(ctx: Context, request: DiffRequest) -> DiffResult:
    """Run the diff, drawing each side's collect as it goes; then the report's flagged part and the paths."""
    console = stdout_console()

    @contextmanager
    def show(side: str, collect: CollectRequest) -> Iterator[Watch]:
        watch = Shown(ctx, len(collect.request.benchmarks), f"{side}: collecting {collect.recipe.commit.rev}")
        with watch.progress:
            yield watch

    result = run_diff(ctx, request, show)
    for side, recipe, run in (("base", result.base_recipe, result.base), ("head", result.head_recipe, result.head)):
        console.print(f"{side} {recipe.commit.rev}: {collect_report.headline(run.outcomes)}")
    console.print(report.flagged_part(result), markup=False, highlight=False)
    paths = result.paths
    console.print(f"report: {paths.report} (paste into a pull request); JSON: {paths.json}")
    rendered = result.rendered
    console.print(
        f"summarize_stats: {paths.summarize}" if rendered.markdown is not None else f"summarize_stats: {rendered.note}"
    )
    console.print(f"collects: {paths.base}, {paths.head}")
    return result


@harness_task(
    help={
        **OPTIONS_HELP,
        "base": "the base revision (before the change): anything git understands",
        "head": "the head revision (with the change)",
        "repairs": REPAIRS_HELP,
        "patches": PATCHES_HELP + "; the same for both sides",
        "config": CONFIG_HELP + "; the same for both sides",
        "processes": "pyperf worker processes per benchmark, the same on both sides (default 2)",
        "loops_file": "loops for both sides (a collect's loops.json or a pyperf result JSON); default: calibrated on the base, the head runs the base's",
        "out": "output directory (default: <cache_dir>/diffs/<stamp>-<base>-<head>): base/, head/, report.md, report.json, summarize_stats.md",
        "min_change": "flag ratio moves and relative count changes of at least this fraction (default 0.10 and 0.25, as compare)",
        "strict": "a benchmark partial on a side counts as not trusted (exit 39)",
        "dry_run": "show the plan (both builds, cached or not; benchmarks; where the loops come from) and do nothing",
    }
)
def diff_task(
    c: InvokeContext,
    base: str | None = None,
    head: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    benchmarks: str = "default",
    jobs: int = 2,
    processes: int = 2,
    loops_file: str | None = None,
    out: str | None = None,
    min_change: str | None = None,
    no_manual: bool = False,
    strict: bool = False,
    dry_run: bool = False,
    repairs: str | None = None,
) -> None:
    """Build two revisions, collect both with the same loops and processes, compare (exit 38: a change
    flagged; 39: a benchmark not trusted, which wins; 40: a benchmark did not run on a side, which wins over both)."""
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
    min_change_value = number("min-change", min_change)
    request = DiffRequest.parse(
        ctx, base=base, head=head, options=options, out=out, min_change=min_change_value, strict=strict
    )
    if dry_run:
        stdout_console().print(describe(ctx, request), markup=False, highlight=False)
        return
    error = diff(ctx, request).exit_error()
    if error is not None:
        raise error
