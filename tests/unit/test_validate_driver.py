"""The validation driver on fake runs (no engine): which runs it makes, in which order, how many ticks."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pystats_harness.errors import ValidationPartial
from pystats_harness.infra.runner import RunResult
from pystats_harness.measure.runs import PathRun, RunPath, Shape
from pystats_harness.measure.suiteconfig import SuiteConfig, load_suite
from pystats_harness.stats.collection import Collection
from pystats_harness.validate import driver, isolation
from pystats_harness.validate.report import Step, StepResult, StepStatus, ValidationReport

MANIFEST = {"python": {"version": "3.13.5"}, "revision": "v3.13.5", "sha": "a" * 40, "patches": []}


@dataclass
class Call:
    path: RunPath
    workload: str
    loops: int
    most_at_once: int = 1  # the most runs in flight while this one ran


@dataclass
class FakeRuns:
    """Run functions that record every call and how many runs were in flight beside it."""

    processes: int
    calls: list[Call] = field(default_factory=list)
    active: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _run(self, path: RunPath, workload: str, shape: Shape) -> PathRun:
        call = Call(path, workload, shape.loops)
        with self.lock:
            self.calls.append(call)
            self.active.append(call)
            for c in self.active:
                c.most_at_once = max(c.most_at_once, len(self.active))
        time.sleep(0.05)
        with self.lock:
            self.active.remove(call)
        per_process = {"opcode.LOAD_FAST.execution_count": 7 + 3 * shape.loops * (workload != "null")}
        times = self.processes if path is RunPath.AUTOMATED else 1
        counters = {k: v * times for k, v in per_process.items()}
        result = RunResult(0, "", "", Path("/nonexistent"), (), 0.0)
        return PathRun(workload, path, shape, Collection({}, counters), (result,))

    def manual(self, ctx: Any, entry: Any, workload: str, shape: Shape) -> PathRun:
        return self._run(RunPath.MANUAL, workload, shape)

    def automated(self, ctx: Any, entry: Any, workload: str, shape: Shape, *, leak: bool = False) -> PathRun:
        return self._run(RunPath.AUTOMATED, workload, shape)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRuns]:
    suite = load_suite()
    runs = FakeRuns(suite.processes)
    table = {"canaries": {name: {"cannot_count": "no handler recorded"} for name in suite.canaries}}
    monkeypatch.setattr(driver, "step_fingerprint", lambda ctx, entry: StepResult(Step.FINGERPRINT, "pass", "ok"))
    monkeypatch.setattr(driver, "canary_table", lambda ctx, entry: json.dumps(table))
    monkeypatch.setattr(driver, "run_manual", runs.manual)
    monkeypatch.setattr(driver, "run_automated", runs.automated)
    monkeypatch.setattr(isolation, "run_manual", runs.manual)
    yield runs


def _validate(workloads: dict[str, int], suite: SuiteConfig, tmp_path: Path) -> tuple[ValidationReport, int]:
    ticks = []
    entry = SimpleNamespace(manifest=lambda: MANIFEST, key="key")
    report = driver.validate(
        None,  # type: ignore[arg-type]
        entry,  # type: ignore[arg-type]
        workloads,
        suite,
        jobs=2,
        tick=lambda: ticks.append(1),
        baselines_root=tmp_path,
    )
    return report, len(ticks)


def test_one_workload_is_isolated_beside_a_partner_against_references_run_one_at_a_time(
    fake: FakeRuns, tmp_path: Path
) -> None:
    suite = load_suite()
    report, ticks = _validate({"nbody": 10}, suite, tmp_path)
    step = next(s for s in report.steps if s.step is Step.ISOLATION)
    assert (step.status, step.summary) == (
        StepStatus.PASS,
        "nbody + richards (partner) at once in 2 containers count exactly what each counts alone "
        "(references run one at a time): 2 counters equal exactly",
    )
    assert report.metadata["isolation"] == {"at_once": ["nbody", "richards"], "partners": ["richards"]}
    alone, together = fake.calls[-4:-2], fake.calls[-2:]
    assert [(c.workload, c.loops, c.most_at_once) for c in alone] == [("nbody", 10, 1), ("richards", 10, 1)]
    assert [(c.workload, c.most_at_once) for c in together] == [("nbody", 2), ("richards", 2)]
    assert not any(c.workload == "richards" for c in fake.calls[:-4])  # the partner runs for isolation only
    assert ticks == driver.count_jobs({"nbody": 10}, suite)


def test_ticks_match_the_progress_total_for_every_workload(fake: FakeRuns, tmp_path: Path) -> None:
    suite = load_suite()
    report, ticks = _validate(dict(suite.workloads), suite, tmp_path)
    assert ticks == driver.count_jobs(suite.workloads, suite)
    assert report.metadata["isolation"]["partners"] == [] and len(report.metadata["isolation"]["at_once"]) == 4


def test_canaries_that_cannot_be_counted_are_partial_and_fail_with_strict(fake: FakeRuns, tmp_path: Path) -> None:
    report, _ = _validate({"nbody": 10}, load_suite(), tmp_path)
    # the threaded canary's kernel is one of them: it is not counted either (and says so)
    assert [s.step for s in report.partial_steps()] == [Step.CANARIES, Step.THREADS]
    threads = next(s for s in report.steps if s.step is Step.THREADS)
    assert threads.summary == "threaded canary not counted: no handler recorded"
    assert report.error() is None
    assert isinstance(report.error(strict=True), ValidationPartial)
