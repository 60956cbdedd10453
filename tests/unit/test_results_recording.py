"""What validate, collect, history and bisect record in the results store when they finish, a store that
cannot take the record (one warning line, the run's outputs untouched), and `invoke results` as a user runs
it: the list, one run, a metric over every run, a merge, and bad input as one line with its own exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from pystats_harness.bisect.outputs import record_step
from pystats_harness.builder.cache import BuildFacts
from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect import one, trust
from pystats_harness.collect.recording import recorded as collect_recorded
from pystats_harness.config import load_settings
from pystats_harness.console import Reporter
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.measure.measurer import Measured, Source
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.measure.recording import commit_run
from pystats_harness.measure.workload import Workload
from pystats_harness.results import RunRecord, Store, Task, UnitRecord
from pystats_harness.results.recording import record_runs
from pystats_harness.stats.collection import Collection
from pystats_harness.validate.recording import recorded as validate_recorded
from pystats_harness.validate.report import Step, StepResult, StepStatus, ValidationReport
from tests.support.invoke_runner import invoke_env, run_invoke

COMMIT = CommitInfo("v3.13.5", "f" * 40, "2025-06-11T12:00:00+00:00", "Python 3.13.5")
HIT, MISS = "opcode.LOAD_ATTR.specialization.hit", "opcode.LOAD_ATTR.specialization.miss"
MANIFEST = {
    "revision": "v3.13.5",
    "sha": COMMIT.sha,
    "python": {"version": "3.13.5"},
    "patches": [{"id": "0001-stats-off"}],
}


def _collect_output(out: Path) -> list[one.Outcome]:
    counted = Collection({"loops": 4}, {HIT: 12, MISS: 4, "opcode.LOAD_ATTR.execution_count": 40})
    (out / "benchmarks" / "richards").mkdir(parents=True)
    (out / "benchmarks" / "richards" / "collection.json").write_text(json.dumps(counted.to_dict()))
    return [
        one.Outcome("richards", "benchmarks/richards", trust.Verdict.TRUSTED, loops=4),
        one.Outcome("go", "benchmarks/go", trust.Verdict.FAILED, reason="ModuleNotFoundError: no module named x"),
    ]


def test_a_collect_records_each_benchmark_per_loop(tmp_path: Path) -> None:
    outcomes = _collect_output(tmp_path)
    run = collect_recorded(Recipe(COMMIT), BuildFacts("key1", MANIFEST, None), outcomes, tmp_path)
    assert (run.task, run.revision, run.sha, run.commit_date, run.patches) == (
        Task.COLLECT,
        "v3.13.5",
        COMMIT.sha,
        COMMIT.date,
        ("0001-stats-off",),
    )
    richards, go = run.units
    per_loop = {HIT: 3.0, MISS: 1.0, "opcode.LOAD_ATTR.execution_count": 10.0}
    assert (richards.name, richards.verdict, richards.loops, dict(richards.values)) == (
        "richards",
        "trusted",
        4,
        per_loop,
    )

    assert (go.verdict, go.reason, go.values) == ("failed", "ModuleNotFoundError: no module named x", {})
    assert run.extra["build_key"] == "key1" and run.extra["out"] == str(tmp_path)


def test_a_validation_records_its_steps_and_workloads() -> None:
    leak = {"workload": "richards", "check": "automated vs manual", "counter": HIT, "a": "3", "b": "2"}
    report = ValidationReport(
        {"workloads": {"nbody": 10, "richards": 5}, "patches": ["0001-stats-off"], "build_key": "k"},
        (
            StepResult(Step.FINGERPRINT, StepStatus.PASS, "behaves like fixed pystats"),
            StepResult(Step.LEAKAGE, StepStatus.FAIL, "1 leak", (leak,)),
        ),
        per_loop={"nbody": {HIT: 2.0}},
    )
    run = validate_recorded(Recipe(COMMIT), report, ["/out/validation.json"])
    assert [(u.name, u.verdict, u.reason, u.loops, dict(u.values)) for u in run.units] == [
        ("step:fingerprint", "pass", "behaves like fixed pystats", None, {}),
        ("step:leakage", "fail", "1 leak", None, {}),
        ("nbody", "pass", "", 10, {HIT: 2.0}),
        ("richards", "fail", "leakage: 1 finding", 5, {}),
    ]
    assert run.extra == {"files": ["/out/validation.json"], "build_key": "k"}


def test_a_history_or_bisect_records_each_commit_with_every_counter() -> None:
    measured = Measured(COMMIT, Outcome.ok(0.75), Source.MEASURED, build_key="bk", counters={HIT: 3.0, MISS: 1.0})
    failed = Measured(COMMIT, Outcome.failed(Failure.BUILD_FAILED, "make: *** Error 2"), Source.FAILED, build_key="bk")
    run = commit_run(
        Task.HISTORY, COMMIT, [("richards", 7, measured), ("nbody", 3, failed)], config="default", extra={}
    )
    assert [(u.name, u.verdict, u.reason, u.loops, dict(u.values)) for u in run.units] == [
        ("richards", "measured", "", 7, {HIT: 3.0, MISS: 1.0}),
        ("nbody", "build failed", "make: *** Error 2", 3, {}),
    ]
    assert run.extra == {"build_keys": ["bk"]} and run.patches == ("auto",)


def test_a_bisect_run_step_is_recorded_as_a_bisect_run_once(tmp_path: Path) -> None:
    settings = load_settings({"cache_dir": str(tmp_path / "cache")})
    ctx = Context(settings, Reporter(Console(record=True, width=400)))
    rec = Measured(COMMIT, Outcome.ok(0.75), Source.RESULTS_STORE, build_key="bk", counters={HIT: 3.0, MISS: 1.0})
    nbody = Workload("nbody", "nbody", 7, "nbody")
    for _ in range(2):  # git bisect run measuring the same commit again (a reused measurement): one run
        record_step(ctx, rec, nbody, parse_metric(f"{HIT} / ({HIT} + {MISS})"), "default", "bad")
    with Store.open(settings.paths.results_db, create=False) as store:
        (summary,) = store.runs()
        run = store.get(summary.run_id)
    assert (run.task, run.sha, [(u.name, u.verdict, u.loops) for u in run.units]) == (
        Task.BISECT,
        COMMIT.sha,
        [("nbody", "measured", 7)],
    )
    assert run.extra["step"] == "bisect-run" and run.extra["judged"] == "bad" and run.extra["build_keys"] == ["bk"]


def test_a_store_that_cannot_take_the_record_costs_one_warning_line(tmp_path: Path) -> None:
    settings = load_settings({"cache_dir": str(tmp_path / "cache")})
    settings.paths.results_db.parent.mkdir(parents=True)
    settings.paths.results_db.write_text("not a database at all, but some text of a sufficient length\n" * 2)
    console = Console(record=True, width=400)
    run = RunRecord(Task.COLLECT, "v", "a" * 40, "d", "default", (), ())
    assert record_runs(Context(settings, Reporter(console)), [run]) == []
    lines = console.export_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: results store: the run not recorded in ")


def _store(cache: Path) -> tuple[str, str]:
    settings = load_settings({"cache_dir": str(cache)})
    older = RunRecord(
        Task.COLLECT,
        "v3.13.4",
        "e" * 40,
        "2025-06-03T00:00:00+00:00",
        "default",
        (),
        (UnitRecord("richards", "trusted", "", 4, {HIT: 1.0, MISS: 1.0}), UnitRecord("go", "failed", "no module")),
    )
    newer = RunRecord(
        Task.COLLECT,
        *("v3.13.5", COMMIT.sha, COMMIT.date),
        "default",
        (),
        (UnitRecord("richards", "trusted", "", 4, {HIT: 3.0, MISS: 1.0}),),
    )
    with Store.open(settings.paths.results_db) as store:
        return store.record(older), store.record(newer)


def test_invoke_results_lists_shows_and_plots_one_metric(tmp_path: Path) -> None:
    older, _ = _store(tmp_path / "cache")
    env = invoke_env(tmp_path / "cache", COLUMNS="200")
    listed = run_invoke("results", env=env)
    assert listed.returncode == 0, listed.stderr
    assert older[:12] in listed.stdout and "trusted 1" in listed.stdout and "2 run(s)" in listed.stdout
    shown = run_invoke("results", "--run", older[:8], env=env)
    assert shown.returncode == 0 and "no module" in shown.stdout and "richards" in shown.stdout
    series = run_invoke(
        "results", "--metric", "opcode.LOAD_ATTR.specialization.hit_ratio", "--benchmark", "richards", "--json", env=env
    )
    assert series.returncode == 0, series.stderr
    assert [(p["revision"], p["value"]) for p in json.loads(series.stdout)] == [("v3.13.4", 0.5), ("v3.13.5", 0.75)]


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (("--run", "0123"), ExitCode.RUN_NOT_FOUND, "no stored run has an id starting with '0123'"),
        (("--metric", "opcode.LOAD_ATTR.specialization.hit_ration"), ExitCode.UNKNOWN_METRIC, "did you mean"),
        (("--metric", HIT, "--benchmark", "richard"), ExitCode.CONFIG_ERROR, "did you mean richards"),
        (("--merge", "tasks.py"), ExitCode.NOT_A_STORE, "is not a results store"),
        (("--run", "ab", "--metric", HIT), ExitCode.CONFIG_ERROR, "give one of --run, --metric"),
        (("--benchmark", "richards"), ExitCode.CONFIG_ERROR, "give --metric too"),
        (("--task", "publish"), ExitCode.CONFIG_ERROR, "use one of validate, collect"),
    ],
)
def test_bad_input_is_one_line_and_its_own_exit_code(
    tmp_path: Path, args: tuple[str, ...], code: int, says: str
) -> None:
    _store(tmp_path / "cache")
    done = run_invoke("results", *args, env=invoke_env(tmp_path / "cache"))
    assert done.returncode == code and says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_invoke_results_merges_another_store_once(tmp_path: Path) -> None:
    _store(tmp_path / "theirs")
    theirs = load_settings({"cache_dir": str(tmp_path / "theirs")}).paths.results_db
    env = invoke_env(tmp_path / "ours")
    first = run_invoke("results", "--merge", str(theirs), env=env)
    assert first.returncode == 0 and "2 run(s) added, 0 already there" in " ".join(first.stdout.split())
    again = run_invoke("results", "--merge", str(theirs), "--json", env=env)
    assert json.loads(again.stdout) == {"added": 0, "already_there": 2, "measurements_added": 0}
