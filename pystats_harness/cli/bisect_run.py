"""`invoke bisect-run`, one step of ``git bisect run``: measure HEAD (or BISECT_HEAD, or --rev) and answer
in git's protocol: 0 good, 1 bad, 125 skip, 128 abort (a problem that would repeat at every commit),
130 Ctrl-C. Its errors follow that protocol (:mod:`pystats_harness.bisect.exitcodes`), not the
harness's exit codes, so this task maps them itself, a bad setting included.

Use under git: ``git bisect start BAD GOOD && git bisect run python3 -m invoke -r /path/to/pystats-harness
bisect-run --workload nbody --metric ... --threshold 0.84 --direction down`` (``git bisect start
--no-checkout`` works too: BISECT_HEAD is measured, nothing is checked out).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from invoke import Context as InvokeContext
from invoke import Exit, task
from rich.console import Console
from rich.markup import escape

from pystats_harness.bisect.driver import measure_rev
from pystats_harness.bisect.exitcodes import EXIT_ABORT, EXIT_BAD, EXIT_GOOD, EXIT_SKIP, exit_code, exit_code_for_error
from pystats_harness.bisect.judge import Direction, Judge, parse_direction
from pystats_harness.bisect.outputs import record_step
from pystats_harness.cli.bisect import RichProgress
from pystats_harness.cli.common import configuration, number, resolve
from pystats_harness.cli.shell import HarnessTask, settings_of
from pystats_harness.console import one_line, stdout_console
from pystats_harness.errors import ConfigError, HarnessError, RevisionNotFound
from pystats_harness.infra import proc
from pystats_harness.infra.context import Context
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.workload import resolve_workload


def _rev_of_cwd() -> tuple[str, bool]:
    """The commit `git bisect` wants measured: BISECT_HEAD (--no-checkout) or HEAD of the current directory."""
    for ref in ("BISECT_HEAD", "HEAD"):
        argv = ["git", "rev-parse", "--verify", "-q", f"{ref}^{{commit}}"]
        try:
            sha = proc.run(argv, error=ConfigError, what=f"git rev-parse {ref}").strip()
        except ConfigError:
            continue
        if sha:
            return sha, True
    raise ConfigError(
        "not inside a git repository with a HEAD; pass --rev, or run under `git bisect run` in a CPython clone"
    )


def bisect_run(
    make_context: Callable[[], Context],
    *,
    workload: str,
    metric: str,
    threshold: Any,
    direction: str | None = "up",
    rev: str | None = None,
    loops: Any = None,
    config: str | None = None,
) -> int:
    """`invoke bisect-run` for `git bisect run`: 0 good, 1 bad, 125 skip, 128 setup error, 130 Ctrl-C.

    Never raises: a bad setting (``make_context`` fails) is 128 too. Measurements are shared with ``invoke
    bisect`` through the results store, and each step is recorded there as a bisect run."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    from_cwd = False
    try:
        ctx = make_context()
        name = configuration(ctx, config)
        value = number("threshold", threshold)
        if value is None:
            raise ConfigError("--threshold is required (git bisect run judges each commit on its own)")
        judge = Judge(value, value, value, parse_direction(direction) or Direction.UP, True)
        parsed, work = parse_metric(metric), resolve_workload(workload, number("loops", loops, int), ctx)
        if not rev:
            rev, from_cwd = _rev_of_cwd()
        commit = resolve(ctx, rev)
        with RichProgress(err) as progress:
            rec = measure_rev(ctx, commit, workload=work, metric=parsed, progress=progress, config=name)
    except BaseException as exc:
        code = exit_code_for_error(exc)
        if isinstance(exc, RevisionNotFound) and from_cwd:
            code = EXIT_ABORT  # the mirror lacks the clone's commit: the same for every step
            exc = RevisionNotFound(
                f"{exc}; HEAD of {Path.cwd()} is not in the mirror: run `invoke mirror --remote {Path.cwd()}` first"
            )
        reason = escape(one_line(str(exc) or type(exc).__name__))
        if code == EXIT_SKIP and isinstance(exc, HarnessError):  # a verdict for git bisect, like a measured skip
            stdout_console().print(f"bisect-run: skip ({reason}) exit {code}")
            return code
        err.print(f"bisect-run: error: {reason} (exit {code})")
        if code == EXIT_SKIP and not isinstance(exc, HarnessError):  # unexpected: show where
            err.print(escape(traceback.format_exc()))
        return code
    code = exit_code(rec.outcome, judge)
    o = rec.outcome
    state = {EXIT_GOOD: "good", EXIT_BAD: "bad", EXIT_SKIP: f"skip ({o.reason})"}[code]
    record_step(ctx, rec, work, parsed, name, state)  # a store that fails costs a warning line, not the step
    stdout_console().print(
        f"bisect-run {rec.commit.short} {escape(rec.commit.subject[:60])}: "
        f"{f'{o.value:.6g}' if o.usable else '–'} → {escape(state)} ({judge.describe()}; "
        f"{rec.source}{', built' if rec.built else ''}) exit {code}"
    )
    return code


@task(  # not harness_task: every error is git bisect's 128 here; the option letters are the vocabulary's
    name="bisect-run",
    klass=HarnessTask,
    help={
        "workload": "suite workload, pyperformance:NAME, or path to a .py script defining run(loops)",
        "metric": "counter name or arithmetic over counter names (as for invoke bisect)",
        "threshold": "bad when the metric is beyond this value (required)",
        "direction": "up (default): bad means above the threshold; down: below",
        "rev": "revision to measure (default: the current directory's BISECT_HEAD or HEAD)",
        "loops": "bracketed loops per run (default as for invoke bisect)",
        "config": "build configuration (as for invoke bisect); a commit that cannot build it is skipped (125)",
    },
)
def bisect_run_task(
    c: InvokeContext,
    workload: str,
    metric: str,
    threshold: str | None = None,
    direction: str = "up",
    rev: str | None = None,
    loops: str | None = None,
    config: str | None = None,
) -> None:
    """For `git bisect run`: measure HEAD (or --rev); exit 0 good, 1 bad, 125 skip, 128 setup error."""
    code = bisect_run(
        lambda: settings_of(c),
        workload=workload,
        metric=metric,
        threshold=threshold,
        direction=direction,
        rev=rev,
        loops=loops,
        config=config,
    )
    raise Exit(code=code)
