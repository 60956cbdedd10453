"""The collect task: pystats for pyperformance benchmarks, each with a trust verdict."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pystats_harness.build.ensure import ensure_build
from pystats_harness.collect import driver, one
from pystats_harness.collect import loops as loops_file
from pystats_harness.collect import report as collect_report
from pystats_harness.collect.benchmarks import read_suite, select
from pystats_harness.collect.sites import benchmark_data_dir
from pystats_harness.collect.trust import Verdict
from pystats_harness.console import stdout_console
from pystats_harness.infra.context import Context
from pystats_harness.validate.suiteconfig import load_suite


def _progress(ctx: Context) -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=ctx.reporter.console, transient=True)


def run_collect(
    ctx: Context,
    rev: str,
    patches: str,
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
    stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{rev.replace('/', '_')}"
    out_dir = Path(out).resolve() if out else ctx.settings.cache_dir / "collect" / stamp
    driver.check_request(chosen, jobs, processes, out_dir)
    entry = ensure_build(ctx, rev, patches)
    request = driver.Request(chosen, jobs, processes, fixed, out_dir, manual)
    with _progress(ctx) as progress:
        overall = progress.add_task(f"collecting {rev}", total=len(chosen))

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
            detail = "" if outcome.verdict is Verdict.TRUSTED else f": {collect_report.detail(outcome)}"
            ctx.reporter.console.print(
                f"{outcome.name}: {outcome.verdict.value} ({outcome.seconds:.0f} s){detail}", markup=False
            )

        outcomes = driver.collect(
            ctx, entry, suite_benchmarks, request, load_suite(), started=started, finished=finished
        )
    console = stdout_console()
    console.print(collect_report.to_rich(outcomes, f"pystats over pyperformance {suite_benchmarks.version}: {rev}"))
    console.print(collect_report.headline(outcomes))
    console.print(f"output: {out_dir} (report.json, trust.md, loops.json, benchmarks/<name>/)")
    return outcomes


def raise_for(outcomes: list[one.Outcome]) -> None:
    """Exit 25 when a benchmark failed to run, 26 when one is untrustworthy (see report.exit_error)."""
    error = collect_report.exit_error(outcomes)
    if error is not None:
        raise error
