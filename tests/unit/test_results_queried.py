"""The metrics a user asked `invoke results --metric` for, remembered beside the store for `invoke publish`
(pystats_harness/results/queried.py): only an answered one, newest last, once each, at most LIMIT."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.exit_codes import ExitCode
from pystats_harness.results import RunRecord, Store, Task, UnitRecord, queried
from tests.support.invoke_runner import invoke_env, run_invoke


def test_remembered_once_each_newest_last_and_bounded(tmp_path: Path) -> None:
    db = tmp_path / "results" / "results.sqlite"
    db.parent.mkdir()
    assert queried.queried(db) == ()
    for metric in ("a.hit_ratio", "b", "a.hit_ratio"):
        queried.remember(db, metric)
    assert queried.queried(db) == ("b", "a.hit_ratio")
    for n in range(queried.LIMIT + 5):
        queried.remember(db, f"m{n}")
    assert len(queried.queried(db)) == queried.LIMIT and queried.queried(db)[-1] == f"m{queried.LIMIT + 4}"
    queried.path_beside(db).write_text('{"not": "a list"}')
    assert queried.queried(db) == ()


def test_invoke_results_remembers_a_metric_it_answered(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    db = cache / "results" / "results.sqlite"
    with Store.open(db) as store:
        unit = UnitRecord("richards", "trusted", "", 10, {"gc.0.collections": 2.0})
        store.record(RunRecord(Task.COLLECT, "v3.13.5", "a" * 40, "2025-06-11T12:00:00+00:00", "default", (), (unit,)))
    env = invoke_env(cache)
    assert run_invoke("results", "--metric", "gc.0.collections", env=env).returncode == 0
    assert run_invoke("results", "--metric", "gc.9.nope", env=env).returncode == ExitCode.UNKNOWN_METRIC
    assert queried.queried(db) == ("gc.0.collections",)
