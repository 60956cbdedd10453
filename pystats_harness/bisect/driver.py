"""Bisect a pystats metric over CPython history.

The search itself is :mod:`pystats_harness.bisect.search`; :class:`~pystats_harness.measure.measurer.Measurer`
supplies its ``measure(index)``. Good and bad are measured first and must differ as claimed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pystats_harness.bisect.confirm import Confirmation, confirm, skipped
from pystats_harness.bisect.judge import Judge, parse_direction, validate_endpoints
from pystats_harness.bisect.kary import kary_bisect
from pystats_harness.bisect.report import BisectReport
from pystats_harness.bisect.report import CommitInfo as ReportCommit
from pystats_harness.bisect.report import to_dict as report_to_dict
from pystats_harness.bisect.search import BisectResult, estimate_remaining_steps
from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.console import Reporter
from pystats_harness.errors import ConfigError, EndpointFailed, EndpointsDoNotDiffer, HarnessError
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror
from pystats_harness.measure.fleet import Fleet, open_fleet
from pystats_harness.measure.measurer import Measured, Measurer
from pystats_harness.measure.metric import Metric, parse_metric
from pystats_harness.measure.outcome import Outcome
from pystats_harness.measure.workload import Workload, resolve_workload


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
    workers: int = 1  # K: commits measured at once (cluster workers; 1 = this machine)
    unfit: dict[str, str] = field(default_factory=dict)  # cluster workers that took no units, and why
    confirmation: Confirmation = field(default_factory=lambda: skipped("--no-confirm"))

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
                "workers": self.workers,
                "rounds": self.report.result.rounds,
                "unfit_workers": self.unfit,
                "wall_seconds": round(self.wall_seconds, 2),
                "steps": steps,
            },
        }


def _endpoint_error(which: str, rev: str, rec: Measured) -> HarnessError:
    what = f"cannot measure --{which} {rev} ({rec.commit.short}): {rec.outcome.reason}"
    if isinstance(rec.error, HarnessError):
        return EndpointFailed(what, cause=rec.error)
    return EndpointsDoNotDiffer(what + "; a bisect needs a value at both ends")


@dataclass(frozen=True)
class BisectRequest:
    """A bisect, typed at the edge: the ends resolved (each commit's ``rev`` is the name the user gave), the
    metric parsed, the workload found, the direction checked (``None``: from good vs bad), every commit
    built in configuration ``config``."""

    good: CommitInfo
    bad: CommitInfo
    workload: Workload
    metric: Metric
    threshold: float | None = None
    direction: str | None = None
    config: ConfigName = DEFAULT
    confirm: bool = True

    @classmethod
    def parse(
        cls,
        ctx: Context,
        *,
        good: str,
        bad: str,
        workload: str,
        metric: str,
        threshold: float | None = None,
        direction: str | None = None,
        loops: int | None = None,
        config: ConfigName = DEFAULT,
        confirm: bool = True,
    ) -> BisectRequest:
        """The options checked in the order a user reads them: the metric and the direction, the revisions
        (resolved once, in this machine's mirror), then the workload (``pyperformance:NAME`` needs the
        suite: the benchmark wheelhouse, made the first time, which a mistyped revision must not cost)."""
        parsed, wanted = parse_metric(metric), parse_direction(direction)
        mirror = Mirror(ctx.settings.mirror_dir)
        first, last = mirror.resolve(good), mirror.resolve(bad)
        work = resolve_workload(workload, loops, ctx)
        return cls(first, last, work, parsed, threshold, wanted, config, confirm)


def bisect_path(mirror: Mirror, good: CommitInfo, bad: CommitInfo) -> tuple[str, list[CommitInfo]]:
    """The commits from good to bad (ancestry path), and how the good end is named.

    As git bisect does for a good commit on another branch, the path starts at their merge base,
    which is then measured as the good end (and must be good)."""
    if good.sha == bad.sha:
        raise ConfigError(f"--good {good.rev} and --bad {bad.rev} are the same commit ({good.short})")
    if mirror.is_ancestor(good.sha, bad.sha):
        return good.rev, [good, *mirror.ancestry_path(good.sha, bad.sha)]
    base = mirror.merge_base(good.sha, bad.sha)
    if mirror.is_ancestor(bad.sha, good.sha) or base is None or base.sha == bad.sha:
        raise ConfigError(
            f"--good {good.rev} ({good.short}) is not an ancestor of --bad {bad.rev} ({bad.short}) and they share "
            "no earlier commit; swap them if bad is the older one"
        )
    Reporter().warn(
        f"--good {good.rev} ({good.short}) is on another branch than --bad {bad.rev}; bisecting from "
        f"their merge base {base.short} ({base.subject[:60]}), measured as the good end"
    )
    return f"merge-base({good.rev}, {bad.rev})", [base, *mirror.ancestry_path(base.sha, bad.sha)]


def run_bisect(ctx: Context, request: BisectRequest, progress: Progress | None = None) -> BisectRun:
    """Measure good and bad, check they differ as claimed, then bisect the ancestry path between them:
    one commit at a time here, or K at a time (k-ary rounds) on the K workers of ``pystats.cluster``;
    every commit built in the request's configuration. Then (``request.confirm``, exact result) confirm
    the culprit on this machine (:mod:`pystats_harness.bisect.confirm`)."""
    started = time.perf_counter()
    parsed, work, config = request.metric, request.workload, request.config
    mirror = Mirror(ctx.settings.mirror_dir)
    good, path = bisect_path(mirror, request.good, request.bad)
    bad = request.bad.rev
    progress = progress or Progress()
    with open_fleet(ctx.with_reporter(progress.reporter), parsed, [work], config) as fleet:
        run = _search_with(fleet, progress, path, parsed, (good, bad), request.threshold, request.direction)
    confirmation = skipped("--no-confirm")
    if request.confirm:
        measurer = Measurer(ctx.with_reporter(progress.reporter), parsed, work, config)
        judge = run.result.judge
        confirmation = confirm(
            measurer,
            mirror,
            path,
            run.result,
            progress.start,
            lambda label, left, index, rec: progress.finish(label, left, index, rec, judge),
        )
    built = {i: rec.upstream for i, rec in run.records.items()}  # a repaired build says so in every row
    infos = {c.sha: ReportCommit(c.sha, c.subject, c.date, built.get(i, "")) for i, c in enumerate(path)}
    report = BisectReport(run.result, parsed.expression, work.name, good, bad, infos, config, confirmation)
    wall = time.perf_counter() - started
    unfit = dict(fleet.unfit)
    return BisectRun(report, work, run.records, run.labels, fleet.builds, wall, fleet.width, unfit, confirmation)


@dataclass
class _Search:
    result: BisectResult
    records: dict[int, Measured]
    labels: dict[int, str]


def _search_with(
    fleet: Fleet,
    progress: Progress,
    path: list[CommitInfo],
    parsed: Metric,
    revs: tuple[str, str],
    threshold: float | None,
    wanted: str | None,
) -> _Search:
    records: dict[int, Measured] = {}
    labels: dict[int, str] = {0: "good", len(path) - 1: "bad"}
    remaining = estimate_remaining_steps(0, len(path) - 1)

    def measure(indices: Sequence[int], judge: Judge | None, left: int) -> dict[int, Outcome]:
        """One commit at a time here (each shown as it starts), or all of a round at once on the cluster."""
        batches = [[i] for i in indices] if fleet.width == 1 else [list(indices)]
        for batch in batches:
            for index in batch:
                progress.start(labels[index], left, index, path[index])
            for index, rec in zip(batch, fleet.measure_many([path[i] for i in batch]), strict=True):
                records[index] = rec
                progress.finish(labels[index], left, index, rec, judge)
        return {i: records[i].outcome for i in indices}

    ends = (("good", revs[0], 0), ("bad", revs[1], len(path) - 1))
    for batch in ([ends[0]], [ends[1]]) if fleet.width == 1 else ([*ends],):  # here: no bad build if good fails
        measure([index for _, _, index in batch], None, remaining)
        for which, rev, index in batch:
            if not records[index].outcome.usable:
                raise _endpoint_error(which, rev, records[index])
    good_value, bad_value = records[0].outcome.number, records[len(path) - 1].outcome.number
    judge = Judge.from_endpoints(good_value, bad_value, threshold=threshold, direction=wanted)
    validate_endpoints(
        good_value, bad_value, judge, metric=parsed.expression, good_label=f"good {revs[0]}", bad_label=f"bad {revs[1]}"
    )
    word = "step" if fleet.width == 1 else "round"
    state = {"left": remaining}

    def on_round(number: int, left: int, indices: Sequence[int]) -> None:
        state["left"] = left
        for index in indices:
            labels[index] = f"{word} {number}"

    shas = [c.sha for c in path]
    result = kary_bisect(shas, lambda idx: measure(idx, judge, state["left"]), judge, fleet.width, on_round=on_round)
    return _Search(result, records, labels)


def measure_rev(
    ctx: Context,
    commit: CommitInfo,
    *,
    workload: Workload,
    metric: Metric,
    progress: Progress | None = None,
    config: ConfigName = DEFAULT,
) -> Measured:
    """One commit, as ``bisect-run`` needs it (the same caches as ``bisect``); progress index is -1."""
    progress = progress or Progress()
    progress.start("bisect-run", 0, -1, commit)
    return Measurer(ctx.with_reporter(progress.reporter), metric, workload, config).measure(commit)
