"""validate and collect on a cluster without an engine: chunking, the units' loops, failures carried as
data with their local exit codes, results assembled into the same output files as a local collect."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pystats_harness.builder.cache import BuildFacts, CacheEntry
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import error_exit
from pystats_harness.collect import driver, one
from pystats_harness.collect.errors import MixedBuilds
from pystats_harness.collect.run import assemble, one_build, run_metadata, units_for
from pystats_harness.collect.trust import Check, CheckResult, Status, Verdict
from pystats_harness.collect.work import BenchmarkResult, CollectResult, chunk, read_files, write_files
from pystats_harness.dispatch.dispatcher import UnitFailed, raise_failure
from pystats_harness.dispatch.worker import RemoteFailure
from pystats_harness.errors import BuildFailed, ConfigError, FingerprintFailed
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.pyperformance.benchmarks import Benchmark, Suite, Timing
from pystats_harness.stats.collection import Collection, save
from pystats_harness.validate.baseline import AllowanceUse
from pystats_harness.validate.report import Step, StepResult, StepStatus, ValidationReport

COMMIT = CommitInfo("v3.13.5", "a" * 40, "2025-06-11T00:00:00+00:00", "Python 3.13.5")
MANIFEST = {
    "revision": "v3.13.5",
    "sha": "a" * 40,
    "python": {"version": "3.13.5"},
    "patches": [],
    "image": {"id": "sha256:0"},
}


@given(st.lists(st.text(min_size=1, max_size=3), max_size=40), st.integers(1, 8))
def test_chunks_keep_order_and_are_even(names: list[str], workers: int) -> None:
    chunks = chunk(names, workers)
    assert [n for c in chunks for n in c] == names
    assert len(chunks) <= (2 * workers if workers > 1 else 1) and all(chunks)
    if chunks:
        assert max(map(len, chunks)) - min(map(len, chunks)) <= 1


def test_chunks_for_three_benchmarks_on_two_workers() -> None:
    assert chunk(["nbody", "logging", "python_startup"], 2) == [("nbody",), ("logging",), ("python_startup",)]
    assert [len(c) for c in chunk([str(i) for i in range(10)], 2)] == [3, 3, 2, 2]


def _bench(name: str) -> Benchmark:
    return Benchmark(name, f"bm_{name}", "run_benchmark.py", (), (), False, Timing.TIME_FUNC)


def _request(out: Path, loops: dict[str, int] | None = None) -> driver.Request:
    return driver.Request(tuple(_bench(n) for n in ("a", "b", "c")), 2, 2, loops or {}, out)


def test_each_unit_carries_the_fixed_loops_of_its_benchmarks(tmp_path: Path) -> None:
    units = units_for(Recipe(COMMIT), "1.14.0", _request(tmp_path / "o", {"a": 5, "b": 0, "c": 7}), 2)
    assert [u.work.benchmarks for u in units] == [("a",), ("b",), ("c",)]
    assert [dict(u.work.loops) for u in units] == [{"a": 5}, {"b": 0}, {"c": 7}]
    assert all(u.recipe.commit == COMMIT and u.work.jobs == 2 and u.work.processes == 2 for u in units)
    (alone,) = units_for(Recipe(COMMIT), "1.14.0", _request(tmp_path / "o", {"a": 5}), 1)  # one worker: one unit
    assert alone.work.benchmarks == ("a", "b", "c") and dict(alone.work.loops) == {"a": 5}


def _outcome(name: str) -> one.Outcome:
    check = CheckResult(Check.DUMPS, Status.PASS, "2 non-empty dumps, one per worker")
    return one.Outcome(name, f"bm_{name}", Verdict.TRUSTED, (check,), 3, (name,), 1.5)


def _files(tmp_path: Path, name: str) -> dict[str, bytes]:
    src = tmp_path / "worker" / name
    (src / "pyperf").mkdir(parents=True)
    save(Collection({"benchmark": name, "loops": 6}, {"family.BINARY_OP.execution_count": 12}), src / "collection.json")
    (src / "pyperf" / "pyperf.json").write_text("{}")
    return read_files(src)


def _entry(tmp_path: Path) -> CacheEntry:
    path = tmp_path / "builds" / ("k" * 24)
    path.mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps(MANIFEST))
    return CacheEntry(path)


def test_results_assemble_into_the_output_a_local_collect_writes(tmp_path: Path) -> None:
    entry = _entry(tmp_path)
    suite = Suite("1.14.0", {n: _bench(n) for n in "abc"}, {"default": ("a", "b", "c")})
    parts = [
        CollectResult("worker-1", True, entry.facts(), (BenchmarkResult(_outcome("a"), 3, _files(tmp_path, "a")),)),
        CollectResult(
            "worker-2", False, entry.facts(), tuple(BenchmarkResult(_outcome(n), 3, _files(tmp_path, n)) for n in "bc")
        ),
    ]
    parts = pickle.loads(pickle.dumps(parts))  # what travels back from the workers
    outputs, lines = {}, []

    def seen(outcome: one.Outcome, worker: str) -> None:
        lines.append(f"{outcome.name} {worker}")

    for how, build in (("cluster", parts[0].build), ("local", entry)):
        request = _request(tmp_path / how)
        with driver.staged(request.out) as staging:
            results: dict[str, tuple[one.Outcome, int | None]] = {}
            for part in parts:
                assemble(staging, part, results, seen)
            extra = run_metadata("tcp://127.0.0.1:1", 2, {"worker-3": "no engine"}, parts) if how == "cluster" else None
            assert build is not None
            driver.finish(staging, build, suite, request, results, extra)
        outputs[how] = request.out
    cluster, local = outputs["cluster"], outputs["local"]
    assert lines == ["a worker-1", "b worker-2", "c worker-2"] * 2
    files = sorted(p.relative_to(local).as_posix() for p in local.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(cluster).as_posix() for p in cluster.rglob("*") if p.is_file())
    assert "benchmarks/b/pyperf/pyperf.json" in files and "all/collection.json" in files
    for same in ("trust.md", "loops.json", "all/collection.json", "benchmarks/c/collection.json"):
        assert (local / same).read_text() == (cluster / same).read_text(), same
    meta = json.loads((cluster / "report.json").read_text())["metadata"]
    assert meta["measured_by"] == {"a": "worker-1", "b": "worker-2", "c": "worker-2"}
    assert meta["build_key"] == entry.key and meta["units"][0]["built"] is True
    assert meta["workers"] == 2 and meta["unfit_workers"] == {"worker-3": "no engine"}
    assert not list(tmp_path.glob("*.partial-*"))


def test_a_failed_unit_leaves_no_output_and_keeps_its_exit_code(tmp_path: Path) -> None:
    failure = RemoteFailure.of(FingerprintFailed("validation failed at fingerprint: dumps when on"), "worker-2")
    request = _request(tmp_path / "out")
    with pytest.raises(UnitFailed) as info, driver.staged(request.out):
        raise_failure(pickle.loads(pickle.dumps(failure)))  # as the dispatcher does when the unit comes back
    assert info.value.exit_code == 20 and info.value.kind == "FingerprintFailed"
    assert error_exit(info.value) == (f"error: {info.value}", 20) and "on cluster worker worker-2" in str(info.value)
    assert not request.out.exists() and not list(tmp_path.iterdir())


def test_a_build_failure_keeps_its_log_tail(tmp_path: Path) -> None:
    exc = BuildFailed(phase="make", commit="abc", status=2, log_tail=["x.c:1: error: no"], log_path=tmp_path / "l")
    failure = pickle.loads(pickle.dumps(RemoteFailure.of(exc, "worker-1")))
    with pytest.raises(UnitFailed) as info:
        raise_failure(failure)
    assert info.value.exit_code == 7 and info.value.log_tail == ("x.c:1: error: no",)


def test_files_from_a_worker_stay_in_their_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        write_files(tmp_path / "b", {"../escape": b"x"})
    write_files(tmp_path / "b", {"dumps/000-x.txt": b"x"})
    assert (tmp_path / "b" / "dumps" / "000-x.txt").read_bytes() == b"x"


def test_a_validation_report_travels_small() -> None:
    step = StepResult(Step.FINGERPRINT, StepStatus.PASS, "7 probes", ({"probe": "x"},))
    report = ValidationReport({"revision": "v3.13.5"}, (step,), {"nbody": AllowanceUse("objects.frees", 1.5, 25.0, 9)})
    assert pickle.loads(pickle.dumps(report)) == report


def test_units_of_different_builds_are_never_summed(tmp_path: Path) -> None:
    entry = _entry(tmp_path)
    other = BuildFacts("o" * 24, dict(MANIFEST), None)
    same = [CollectResult("worker-1", True, entry.facts()), CollectResult("worker-2", False, entry.facts())]
    assert one_build(same).key == entry.key
    with pytest.raises(MixedBuilds) as info:
        one_build([*same, CollectResult("worker-3", True, other)])
    assert info.value.exit_code == 28
    assert info.value.keys == {entry.key: ("worker-1", "worker-2"), "o" * 24: ("worker-3",)}
    assert "worker-1, worker-2" in str(info.value) and "oooooooooooooooo on worker-3" in str(info.value)
