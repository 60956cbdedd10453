"""invoke history's pure parts: which commits, where metrics move, and the bad-input lines (exit 2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pystats_harness.builder.recipe import Recipe
from pystats_harness.config import load_settings
from pystats_harness.dispatch.units import Attempt
from pystats_harness.errors import ConfigError
from pystats_harness.history.driver import HistoryRun, _series
from pystats_harness.history.report import figure, to_dict, to_markdown
from pystats_harness.history.select import change_points, choose_benchmarks, pick
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.measure.axes import commit_ticks, wrap_name
from pystats_harness.measure.measurer import Measured, MeasureWork, Source
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.measure.workload import Workload
from pystats_harness.pyperformance.benchmarks import read_suite


def test_every_and_count_pick_both_ends() -> None:
    assert pick(10) == list(range(10))
    assert pick(10, every=3) == [0, 3, 6, 9]
    assert pick(10, every=4) == [0, 4, 8, 9]
    assert pick(41, count=8) == [0, 6, 11, 17, 23, 29, 34, 40]
    assert pick(3, count=8) == [0, 1, 2]


@given(n=st.integers(2, 500), every=st.integers(1, 50), count=st.integers(2, 60))
def test_picks_are_sorted_unique_and_hold_the_ends(n: int, every: int, count: int) -> None:
    for picked in (pick(n, every=every), pick(n, count=count)):
        assert picked[0] == 0 and picked[-1] == n - 1 and picked == sorted(set(picked))
    assert len(pick(n, count=count)) == min(count, n)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 5, "every": 0}, "--every 0"),
        ({"n": 5, "count": 1}, "--count 1"),
        ({"n": 5, "every": 2, "count": 3}, "not both"),
        ({"n": 1}, "single commit"),
    ],
)
def test_bad_selection_is_one_line_exit_2(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        pick(**kwargs)
    assert info.value.exit_code == 2 and "\n" not in str(info.value)


def test_change_points_compare_consecutive_measured_values() -> None:
    points = change_points("m", [1.0, 1.01, None, 1.5, 1.5, 0.0, 0.0], 0.05)
    assert [(p.before, p.after) for p in points] == [(1, 3), (4, 5)]
    assert math.isclose(points[0].relative, 0.49 / 1.01) and points[1].relative == -1.0
    assert change_points("m", [0.0, 2.0], 0.05)[0].relative == math.inf
    assert change_points("m", [1.0, 1.04, 1.0], 0.05) == []


def test_benchmarks_of_a_group_that_cannot_run_directly_are_left_out(data_dir: Path) -> None:
    suite = read_suite(data_dir)
    usable, left_out = choose_benchmarks(suite, "nbody,async_tree")
    assert usable == ["nbody", "async_tree"] and left_out == []  # named explicitly: kept (exit 2 at resolution)
    assert choose_benchmarks(suite, "default") == (
        ["nbody", "pickle", "pickle_pure_python"],
        ["python_startup", "async_tree"],
    )
    with pytest.raises(ConfigError, match="holds no benchmark") as info:
        choose_benchmarks(suite, "default,-nbody,-pickle,-pickle_pure_python")
    assert info.value.exit_code == 2


def _rec(i: int, value: float | None, worker: str = "w1") -> Measured:
    commit = CommitInfo(f"c{i}", f"{i:040x}", "2024-01-01T00:00:00+00:00", f"commit {i}")
    outcome = Outcome.failed(Failure.BUILD_FAILED, "build failed here") if value is None else Outcome.ok(value)
    return Measured(
        commit, outcome, Source.MEASURED, built=True, worker=worker, counters={} if value is None else {"x": value}
    )


def _two_benchmark_run() -> HistoryRun:
    works = [
        Workload("pyperformance:nbody", "nbody", 1, "id-n"),
        Workload("pyperformance:richards", "richards", 1, "id-r"),
    ]
    metrics = [parse_metric("x")]
    rows = [(_rec(0, 1.0), _rec(0, 5.0)), (_rec(3, 1.0), _rec(3, 9.0)), (_rec(6, None), _rec(6, None))]
    series = _series(metrics, works)
    values = {s.name: [r[s.workload].outcome.value for r in rows] for s in series}
    changes = [p for s in series for p in change_points(s.name, values[s.name], 0.05)]
    path = [_rec(i, 0.0).commit for i in range(7)]
    return HistoryRun(path, [0, 3, 6], metrics, rows, series, values, changes, works, 0.05, 2, 6, 3, 12.0)


def test_a_series_per_metric_and_benchmark_with_its_own_change_points() -> None:
    run = _two_benchmark_run()
    assert [s.name for s in run.series] == ["x @ nbody", "x @ richards"]
    doc = to_dict(run)
    assert doc["workloads"] == ["pyperformance:nbody", "pyperformance:richards"] and doc["run"]["sent_to_workers"] == 3
    assert doc["commits"][1]["values"] == {"x @ nbody": 1.0, "x @ richards": 9.0}
    assert doc["commits"][2]["failure"] == "nbody: build failed: build failed here"
    (change,) = doc["change_points"]
    assert change["metric"] == "x @ richards" and change["at"] == f"{3:040x}"
    markdown = to_markdown(run)
    assert "`x @ nbody`" in markdown and "pystats history of `nbody,richards`" in markdown


def test_one_workload_keeps_the_metric_as_the_series_name() -> None:
    works = [Workload("nbody", "nbody", 3, "id")]
    assert [s.name for s in _series([parse_metric("a/b"), parse_metric("c")], works)] == ["a / b", "c"]


@dataclass(frozen=True)
class _Planned:
    """What a measure work reads of a plan: the commit, the build key, the upstream changes."""

    commit: CommitInfo
    key: str = "recipe"
    upstream: tuple[Any, ...] = ()


def test_this_machine_keeps_what_workers_send_and_answers_the_rerun(tmp_path: Path) -> None:
    ctx = Context(load_settings({"cache_dir": str(tmp_path)}))
    work = MeasureWork("x", (("nbody", 3), ("richards", 3)))
    ok, broken, flaky = _rec(1, 4.0), _rec(2, None), _rec(3, None)
    assert work.cached(ctx, Attempt(Recipe(ok.commit), "worker-1", _Planned(ok.commit))) is None
    for rec, failure in ((ok, None), (broken, Failure.BUILD_FAILED), (flaky, Failure.RUN_FAILED)):
        outcome = rec.outcome if failure is None else Outcome.failed(failure, "why")
        result = Measured(
            rec.commit, outcome, Source.MEASURED, True, "recipe", worker="worker-2", counters=rec.counters
        )
        work.keep(ctx, (result, result))
    row = work.cached(ctx, Attempt(Recipe(ok.commit), "worker-1", _Planned(ok.commit)))
    assert row is not None and [r.outcome.value for r in row] == [4.0, 4.0]
    assert {r.source for r in row} == {Source.RESULTS_STORE} and not any(r.built for r in row)
    assert {r.worker for r in row} == {"worker-1"}  # a worker's cache hit names the worker, as its measurement does
    failed = work.cached(ctx, Attempt(Recipe(broken.commit), "worker-1", _Planned(broken.commit)))
    assert failed is not None and failed[0].outcome.failure is Failure.BUILD_FAILED  # the commit's own: kept
    assert (
        work.cached(ctx, Attempt(Recipe(flaky.commit), "worker-1", _Planned(flaky.commit))) is None
    )  # a run failure is measured again


# --- history.png: whole commits on the x axis, labels that fit -------------------------------------

LONG_METRIC = "opcode.LOAD_ATTR.specialization.hit / opcode.LOAD_ATTR.execution_count"


@given(
    picked=st.lists(st.integers(0, 5000), min_size=1, max_size=300, unique=True).map(sorted),
    most=st.integers(2, 20),
)
def test_commit_ticks_are_whole_measured_commits_thinned(picked: list[int], most: int) -> None:
    ticks, labels = commit_ticks(picked, [f"c{i}" for i in picked], most=most)
    assert ticks[0] == picked[0] and ticks[-1] == picked[-1] and len(ticks) <= most
    assert set(ticks) <= set(picked) and ticks == sorted(set(ticks)) and all(isinstance(t, int) for t in ticks)
    assert labels == [f"c{t}" for t in ticks]


def test_few_commit_ticks_are_all_labelled_and_many_thinned() -> None:
    assert commit_ticks([0, 3, 6], ["a", "b", "c"]) == ([0, 3, 6], ["a", "b", "c"])
    assert commit_ticks([0, 1, 2, 40], list("abcd"), most=3) == ([0, 40], ["a", "d"])
    assert commit_ticks(list(range(100)), [str(i) for i in range(100)], most=12)[0] == [0, *range(9, 100, 9)]


def test_wrapped_names_break_after_dots_and_keep_every_character() -> None:
    wrapped = wrap_name(LONG_METRIC, 34)
    assert all(len(line) <= 34 for line in wrapped.splitlines()) and len(wrapped.splitlines()) == 3
    assert "".join(wrapped.split()) == "".join(LONG_METRIC.split())
    assert wrap_name("short", 34) == "short"


def test_history_png_ticks_are_commits_labelled_by_sha_and_date() -> None:
    path = [_rec(i, 0.0).commit for i in range(3)]
    rows = [(_rec(i, 0.5 + i),) for i in range(3)]
    works, metrics = [Workload("nbody", "nbody", 3, "id")], [parse_metric(LONG_METRIC)]
    series = _series(metrics, works)
    values = {series[0].name: [0.5, 1.5, 2.5]}
    run = HistoryRun(path, [0, 1, 2], metrics, rows, series, values, [], works, 0.05, 1, 3, 3, 1.0)
    fig = figure(run)
    (ax,) = fig.axes
    assert list(ax.get_xticks()) == [0, 1, 2]  # whole commits, not 0.25, 0.5 ...
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == [f"{c.sha[:7]}\n{c.date[:10]}" for c in path]
    ylabel = ax.get_ylabel()
    assert "".join(ylabel.split()) == "".join(LONG_METRIC.split())  # the whole metric, not cut
    assert all(len(line) <= 34 for line in ylabel.splitlines())


def test_a_repaired_commit_is_a_point_of_its_own_kind() -> None:
    from dataclasses import replace

    repaired = "repaired with upstream 23e4f80ce2 (Python/gc.c)"
    path = [_rec(i, 0.0).commit for i in range(3)]
    rows = [(_rec(0, 1.0),), (replace(_rec(1, 1.0), upstream=repaired),), (_rec(2, 1.0),)]
    works, metrics = [Workload("nbody", "nbody", 3, "id")], [parse_metric("x")]
    series = _series(metrics, works)
    run = HistoryRun(path, [0, 1, 2], metrics, rows, series, {"x": [1.0, 1.0, 1.0]}, [], works, 0.05, 1, 3, 0, 1.0)
    assert [c["upstream"] for c in to_dict(run)["commits"]] == ["", repaired, ""]
    assert f"commit 1 [{repaired}]" in to_markdown(run)
    fig = figure(run)
    (ax,) = fig.axes
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["nbody", "nbody: repaired build"]
    (diamonds,) = ax.collections  # the repaired point alone, drawn apart from the line
    assert [list(p) for p in diamonds.get_offsets()] == [[1.0, 1.0]]
