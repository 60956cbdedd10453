"""Bisect a pystats metric over CPython history.

The search itself is :mod:`pystats_harness.bisect.search`; :class:`~pystats_harness.bisect.measurer.Measurer`
supplies its ``measure(index)``. Good and bad are measured first and must differ as claimed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pystats_harness.bisect.judge import Judge, Outcome, parse_direction, validate_endpoints
from pystats_harness.bisect.measurer import Measured, Measurer
from pystats_harness.bisect.metric import parse_metric
from pystats_harness.bisect.report import BisectReport
from pystats_harness.bisect.report import CommitInfo as ReportCommit
from pystats_harness.bisect.report import to_dict as report_to_dict
from pystats_harness.bisect.search import bisect as _search
from pystats_harness.bisect.search import estimate_remaining_steps
from pystats_harness.bisect.workload import Workload, resolve_workload
from pystats_harness.console import Reporter
from pystats_harness.errors import ConfigError, EndpointFailed, EndpointsDoNotDiffer, HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo, Mirror


class Progress:
    """Hooks for a live display (no-op here; see :mod:`pystats_harness.cli.bisect`).
    ``reporter`` gets the build output."""

    def __init__(self, reporter: Reporter | None = None) -> None:
        self.reporter = reporter or Reporter()

    def start(self, label: str, remaining: int, index: int, commit: CommitInfo) -> None:
        """Before measuring ``commit`` (``label`` is "good", "bad" or "step k")."""

    def finish(self, label: str, remaining: int, index: int, rec: Measured, judge: Judge | None) -> None:
        """After measuring it; ``remaining`` is the estimate of steps still to do."""


@dataclass
class BisectRun:
    report: BisectReport
    workload: Workload
    records: dict[int, Measured]  # every commit measured by this run (endpoints included)
    labels: dict[int, str]
    builds: int
    wall_seconds: float

    def to_dict(self) -> dict[str, Any]:
        steps = [self.records[i].to_dict(i, self.labels[i]) for i in self.records]
        return {
            **report_to_dict(self.report),
            "run": {
                "workload": self.workload.name,
                "workload_id": self.workload.ident,
                "loops": self.workload.loops,
                "path": "manual",
                "builds": self.builds,
                "wall_seconds": round(self.wall_seconds, 2),
                "steps": steps,
            },
        }


def _endpoint_error(which: str, rev: str, rec: Measured) -> HarnessError:
    what = f"cannot measure --{which} {rev} ({rec.commit.short}): {rec.outcome.reason}"
    if isinstance(rec.error, HarnessError):
        return EndpointFailed(what, cause=rec.error)
    return EndpointsDoNotDiffer(what + "; a bisect needs a value at both ends")


def bisect_path(mirror: Mirror, good: str, bad: str) -> tuple[str, list[CommitInfo]]:
    """The commits from good to bad (ancestry path), and how the good end is named.

    As git bisect does for a good commit on another branch, the path starts at their merge base,
    which is then measured as the good end (and must be good)."""
    g, b = mirror.resolve(good), mirror.resolve(bad)
    if g.sha == b.sha:
        raise ConfigError(f"--good {good} and --bad {bad} are the same commit ({g.short})")
    if not mirror.is_ancestor(g.sha, b.sha):
        base = mirror.merge_base(g.sha, b.sha)
        if mirror.is_ancestor(b.sha, g.sha) or base is None or base.sha == b.sha:
            raise ConfigError(
                f"--good {good} ({g.short}) is not an ancestor of --bad {bad} ({b.short}) and they share "
                "no earlier commit; swap them if bad is the older one"
            )
        Reporter().warn(
            f"--good {good} ({g.short}) is on another branch than --bad {bad}; bisecting from "
            f"their merge base {base.short} ({base.subject[:60]}), measured as the good end"
        )
        g, good = base, f"merge-base({good}, {bad})"
    return good, [g, *mirror.ancestry_path(g.sha, b.sha)]


def run_bisect(
    ctx: Context,
    *,
    good: str,
    bad: str,
    workload: str,
    metric: str,
    threshold: float | None = None,
    direction: str | None = None,
    loops: int | None = None,
    progress: Progress | None = None,
) -> BisectRun:
    """Measure good and bad, check they differ as claimed, then bisect the ancestry path between them."""
    started = time.perf_counter()
    parsed, work, wanted = parse_metric(metric), resolve_workload(workload, loops, ctx), parse_direction(direction)
    good, path = bisect_path(Mirror(ctx.settings.mirror_dir), good, bad)
    progress = progress or Progress()
    measurer = Measurer(ctx.with_reporter(progress.reporter), parsed, work)
    records: dict[int, Measured] = {}
    labels: dict[int, str] = {}
    remaining = estimate_remaining_steps(0, len(path) - 1)
    for which, rev, index in (("good", good, 0), ("bad", bad, len(path) - 1)):
        progress.start(which, remaining + (2 if which == "good" else 1), index, path[index])
        rec = records[index] = measurer.measure(path[index])
        labels[index] = which
        progress.finish(which, remaining + (1 if which == "good" else 0), index, rec, None)
        if not rec.outcome.usable:
            raise _endpoint_error(which, rev, rec)
    good_value, bad_value = records[0].outcome.number, records[len(path) - 1].outcome.number
    judge = Judge.from_endpoints(good_value, bad_value, threshold=threshold, direction=wanted)
    validate_endpoints(
        good_value, bad_value, judge, metric=parsed.expression, good_label=f"good {good}", bad_label=f"bad {bad}"
    )

    def measure_at(index: int) -> Outcome:
        records[index] = measurer.measure(path[index])
        return records[index].outcome

    def on_start(step: int, left: int, index: int) -> None:
        labels[index] = f"step {step}"
        progress.start(labels[index], left, index, path[index])

    def on_step(step: int, left: int, index: int, outcome: Outcome) -> None:
        progress.finish(labels[index], left, index, records[index], judge)

    result = _search([c.sha for c in path], measure_at, judge, on_start=on_start, on_step=on_step)
    infos = {c.sha: ReportCommit(c.sha, c.subject, c.date) for c in path}
    report = BisectReport(result, parsed.expression, work.name, good, bad, infos)
    return BisectRun(report, work, records, labels, measurer.builds, time.perf_counter() - started)


def measure_rev(
    ctx: Context, rev: str, *, workload: str, metric: str, loops: int | None = None, progress: Progress | None = None
) -> Measured:
    """One commit, as ``bisect-run`` needs it (the same caches as ``bisect``); progress index is -1."""
    parsed, work = parse_metric(metric), resolve_workload(workload, loops, ctx)
    commit = Mirror(ctx.settings.mirror_dir).resolve(rev)
    progress = progress or Progress()
    progress.start("bisect-run", 0, -1, commit)
    return Measurer(ctx.with_reporter(progress.reporter), parsed, work).measure(commit)
