"""`invoke history`: pystats across a first-parent range of commits, a table and a plot, change points listed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from invoke import Context as InvokeContext
from rich.markup import escape

from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.cli.common import CONFIG_HELP, REPAIRS_HELP, configuration, number
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.console import stdout_console
from pystats_harness.errors import ConfigError
from pystats_harness.history.driver import HistoryRequest
from pystats_harness.history.outputs import history_into
from pystats_harness.history.report import change_lines, to_rich
from pystats_harness.infra.context import Context


def history(
    ctx: Context,
    *,
    from_: str,
    to: str,
    workload: str | None,
    metric: Sequence[str] | None,
    benchmarks: str | None = None,
    every: str | None = None,
    count: str | None = None,
    threshold: str | None = None,
    loops: str | None = None,
    out: str | None = None,
    config: ConfigName = DEFAULT,
) -> int:
    """`invoke history` (options as the task names them): 0 once the table and the files are written."""
    if not from_ or not to:
        raise ConfigError("give --from (the older commit) and --to (the newer one)")
    request = HistoryRequest.parse(
        ctx,
        start=from_,
        end=to,
        workload=workload,
        benchmarks=benchmarks,
        metrics=list(metric or []),
        every=number("every", every, int),
        count=number("count", count, int),
        threshold=number("min-change", threshold) or 0.05,
        loops=number("loops", loops, int),
        config=config,
    )
    run, paths = history_into(ctx, request, Path(out) if out else None)
    console = stdout_console()
    console.print(to_rich(run))
    console.print(f"[bold]change points[/] (relative change above {run.threshold:.1%}): {len(run.changes)}")
    for line in change_lines(run):
        console.print(f"  {escape(line)}")
    for pos, rec in enumerate(run.records):
        if (why := run.failure(pos)) is not None:
            console.print(f"not measured {rec.commit.short}: {escape(why)}")
    sent = f", {run.sent} sent to workers" if run.workers > 1 or run.sent else ""
    console.print(
        f"{len(run.records)} commits measured{sent}, {run.builds} builds, {run.workers} at a time, {run.wall_seconds:.0f} s"
    )
    for kind, path in paths.items():
        console.print(f"{kind:<9}{path}")
    return 0


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "from_": "oldest commit of the range (sha, tag, branch); must be an ancestor of --to",
        "to": "newest commit of the range; the commits between are its first-parent chain",
        "workload": "suite workload or pyperformance:NAME run at every commit (default nbody; see configs/suite.toml)",
        "benchmarks": "instead of --workload: pyperformance benchmarks (as for invoke collect: nbody,richards or a group), each on the manual path at every commit, one build per commit",
        "metric": "counter name or arithmetic over counter names (as for invoke bisect); repeat for several",
        "every": "measure every N-th commit from --from (N >= 1; --to is always measured)",
        "count": "measure M commits spread evenly over the range (M >= 2, both ends included)",
        "min_change": "flag a change point where a metric moves by more than this fraction (default 0.05)",
        "loops": "bracketed loops per run (default: the workload's loops in configs/suite.toml; 1 for a benchmark)",
        "out": "directory for history.json, history.md, history.png (default: <cache_dir>/history/<time>-<workload>)",
        "config": CONFIG_HELP + "; every commit is built in it (a commit that cannot build it has no value)",
    },
    iterable=["metric"],
    renamed={"threshold": "min_change"},
)
def history_task(
    c: InvokeContext,
    from_: str = "",
    to: str = "",
    workload: str | None = None,
    benchmarks: str | None = None,
    metric: list[str] | None = None,
    every: str | None = None,
    count: str | None = None,
    min_change: str | None = None,
    loops: str | None = None,
    out: str | None = None,
    config: str | None = None,
    repairs: str | None = None,
) -> None:
    """pystats across a range of commits (first parent): a table, a plot, change points with subjects."""
    ctx = settings_of(c, repairs=repairs)
    history(
        ctx,
        from_=from_,
        to=to,
        workload=workload,
        benchmarks=benchmarks,
        metric=metric,
        every=every,
        count=count,
        threshold=min_change,
        loops=loops,
        out=out,
        config=configuration(ctx, config),
    )
