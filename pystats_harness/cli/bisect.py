"""`invoke bisect`: arguments, live progress, outputs, exit codes (`invoke bisect-run`, the step of
`git bisect run`, is in :mod:`pystats_harness.cli.bisect_run`).

Use under git: ``git bisect start BAD GOOD && git bisect run python3 -m invoke -r /path/to/pystats-harness
bisect-run --workload nbody --metric ... --threshold 0.84 --direction down`` (``git bisect start
--no-checkout`` works too: BISECT_HEAD is measured, nothing is checked out).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from invoke import Context as InvokeContext
from rich.console import Console
from rich.markup import escape

from pystats_harness.bisect.driver import BisectRequest, Progress
from pystats_harness.bisect.judge import Judge, Verdict
from pystats_harness.bisect.outputs import bisect_into, goal
from pystats_harness.bisect.report import BisectReport, summary, to_rich
from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.cli.common import CONFIG_HELP, REPAIRS_HELP, configuration, number
from pystats_harness.cli.shell import exit_with, harness_task, settings_of
from pystats_harness.console import Reporter, stdout_console
from pystats_harness.errors import ConfigError
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.measure.measurer import Measured
from pystats_harness.measure.outcome import Failure, Outcome


class _StepReporter(Reporter):
    """Build output folded into the bisect's single status line; the failed build's log tail is kept."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.prefix = ""
        self._what = ""

    @contextmanager
    def live(self, title: str) -> Iterator[Reporter]:  # build.execute's "building <sha>"
        self.show(title)
        yield self

    def show(self, what: str) -> None:
        self._what = what
        if self._status is not None:
            self._status.update(f"[bold]{escape(self.prefix)}[/] {escape(what)}")

    def phase(self, name: str, seconds: float | None = None) -> None:
        if seconds is None:
            self._phase, self._phase_start = name, time.perf_counter()
            self.show(name if name.startswith("running") else f"{self._what.split(':')[0]}: {name}")

    def line(self, text: str) -> None:
        if self._status is not None:
            elapsed = time.perf_counter() - self._phase_start
            self._status.update(
                f"[bold]{escape(self.prefix)}[/] {escape(self._what)} {elapsed:4.0f} s [dim]{escape(text[-80:])}[/]"
            )


class RichProgress(Progress):
    """One live status line ("step 3, ~2 left, building abc123 …") and one printed line per commit."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)
        super().__init__(_StepReporter(self.console))
        self._status: Any = None

    def __enter__(self) -> RichProgress:
        if self.console.is_terminal:
            self._status = self.console.status("bisect: resolving the commits …")
            self._status.start()
            self.reporter._status = self._status
        return self

    def __exit__(self, *exc: object) -> None:
        if self._status is not None:
            self._status.stop()
            self.reporter._status = None

    def start(self, label: str, remaining: int, index: int, commit: CommitInfo) -> None:
        assert isinstance(self.reporter, _StepReporter)
        self.reporter.prefix = label if index < 0 else f"{label}, ~{remaining} left,"
        self.reporter.show(f"{commit.short} {commit.subject[:50]} …")
        if self._status is None:
            head = label if index < 0 else f"{label} (~{remaining} left) #{index}"
            self.console.print(f"{head} {commit.short} {escape(commit.subject[:60])} …")

    def finish(self, label: str, remaining: int, index: int, rec: Measured, judge: Judge | None) -> None:
        o = rec.outcome
        if not o.usable:
            state = f"[yellow]skipped[/] ({escape(o.reason)})"
        elif judge is None:
            state = ""  # an endpoint: judged once both are known
        else:
            verdict = judge.verdict(o.number)
            state = f"[{'red' if verdict == 'bad' else 'green'}]{verdict}[/]"
        value = f"{o.value:.6g}" if o.usable else "–"
        how = rec.source + (", built" if rec.built else "")
        self.console.print(
            f"{label} (~{remaining} left) #{index} {rec.commit.short}: {value} {state + ' ' if state else ''}"
            f"[dim]({how}, {rec.seconds.get('total', 0):.1f} s)[/]"
        )


def _short_reasons(report: BisectReport) -> BisectReport:
    """The report with skipped commits' details dropped (the table shows "build failed"; the full
    reasons, with compiler error and log path, are printed below it)."""
    r = report.result
    tested = tuple(
        replace(t, outcome=Outcome.failed(t.outcome.failure or Failure.METRIC_UNDEFINED))
        if t.status is Verdict.SKIPPED
        else t
        for t in r.tested
    )
    return replace(report, result=replace(r, tested=tested))


def bisect(
    ctx: Context,
    *,
    good: str,
    bad: str,
    workload: str,
    metric: str,
    threshold: Any = None,
    direction: str | None = None,
    loops: Any = None,
    out: str | Path | None = None,
    make_jobs: Any = None,
    config: ConfigName = DEFAULT,
    confirm: bool = True,
) -> int:
    """`invoke bisect`: 0 when the search finished (exact commit or a range around unbuildable ones)."""
    if make_jobs not in (None, ""):
        if (jobs := number("make-jobs", make_jobs, int)) < 0:
            raise ConfigError(f"--make-jobs {jobs} is negative; use 0 for one job per core")
        ctx = ctx.with_settings(ctx.settings.with_overrides(make_jobs=jobs))
    request = BisectRequest.parse(
        ctx,
        good=good,
        bad=bad,
        workload=workload,
        metric=metric,
        threshold=number("threshold", threshold),
        direction=direction or None,
        loops=number("loops", loops, int),
        config=config,
        confirm=confirm,
    )
    with RichProgress() as progress:
        run, paths = bisect_into(ctx, request, Path(out) if out else None, progress)
    stdout = stdout_console()
    stdout.print(to_rich(_short_reasons(run.report)))
    r = run.report.result
    if r.exact:
        info = run.report.info(r.earliest_bad)
        stdout.print(f"[bold]first bad commit[/] {info.sha}\n  subject {escape(info.subject)}\n  date    {info.date}")
    else:
        stdout.print(escape(summary(run.report)))
        for index in r.candidates:
            t = r.at(index)
            why = f"skipped: {t.reason}" if t and t.status is Verdict.SKIPPED else ("bad" if t else "not measured")
            stdout.print(f"  candidate #{index} {run.report.info(index).sha[:12]} {escape(why)}")
    for t in r.skipped:
        stdout.print(f"skipped #{t.index} {t.sha[:12]}: {escape(t.reason)}")
    stdout.print(f"[bold]confirmation[/] {escape(run.confirmation.line())}")
    stdout.print(
        f"{run.builds} builds (goal ≤ {goal(len(r.commits))} for {len(r.commits)} commits), "
        f"{len(run.records)} commits measured or read from the results store, {run.wall_seconds:.0f} s"
    )
    for kind, path in paths.items():
        stdout.print(f"{kind:<9}{path}")
    return 0


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "good": "revision where the metric has its old value (sha, tag, branch, main~3)",
        "bad": "later revision where it has changed (if good is on another branch: their merge base is used)",
        "workload": "suite workload (nbody, richards, ... see configs/suite.toml), pyperformance:NAME (the benchmark's timed function on the manual path; default --loops 1), or a path to a .py script defining run(loops)",
        "metric": "counter name or arithmetic over counter names, e.g. 'opcode.LOAD_ATTR.specialization.hit / opcode.LOAD_ATTR.execution_count'",
        "threshold": "judge each commit against this value (default: midpoint of the good and bad values)",
        "direction": "up: bad means above the threshold; down: below (default: from good vs bad)",
        "loops": "bracketed loops per run (default: the workload's loops in configs/suite.toml; 10 for a script)",
        "out": "directory for report.json, report.md, plot.png (default: <cache_dir>/bisect/<time>-<workload>)",
        "make_jobs": "make -j for the builds (default: setting pystats.make_jobs)",
        "config": CONFIG_HELP + "; every commit is built in it (a commit that cannot build it is skipped)",
        "confirm": "after an exact search, re-measure the first bad commit and its parent 3 times each (fresh, "
        "not from the results store) and measure the bad end with the culprit reverted: confirmed, repeated or not "
        "confirmed (default; --no-confirm skips it)",
    },
    renamed={"jobs": "make_jobs"},
)
def bisect_task(
    c: InvokeContext,
    good: str,
    bad: str,
    workload: str,
    metric: str,
    threshold: str | None = None,
    direction: str | None = None,
    loops: str | None = None,
    out: str | None = None,
    make_jobs: str | None = None,
    config: str | None = None,
    repairs: str | None = None,
    confirm: bool = True,
) -> None:
    """Find the first commit between good and bad where a pystats metric changed."""
    ctx = settings_of(c, repairs=repairs)
    code = bisect(
        ctx,
        good=good,
        bad=bad,
        workload=workload,
        metric=metric,
        threshold=threshold,
        direction=direction,
        loops=loops,
        out=out,
        make_jobs=make_jobs,
        config=configuration(ctx, config),
        confirm=confirm,
    )
    exit_with(code)
