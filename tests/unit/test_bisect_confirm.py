"""Confirming a bisect's culprit: the judging (values repeat, the revert brings the metric back), its
report line and JSON, the measuring with fakes, and the Measurer's fresh runs (no stored measurement)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pystats_harness.bisect import confirm as confirm_mod
from pystats_harness.bisect.confirm import (
    Confirmation,
    Revert,
    Status,
    changed_paths,
    conclude,
    confirm,
    repeat_problem,
    skipped,
    spread,
)
from pystats_harness.bisect.judge import Judge
from pystats_harness.bisect.report import BisectReport, from_json, to_json, to_markdown
from pystats_harness.bisect.search import BisectResult
from pystats_harness.builder.recipe import Recipe
from pystats_harness.builder.upstream import Kind, UpstreamPatch
from pystats_harness.config import load_settings
from pystats_harness.dispatch import runner as runner_mod
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.measure import measurer as measurer_mod
from pystats_harness.measure.measurer import Measured, Measurer, Source
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.measure.stored import Measurements
from pystats_harness.measure.workload import resolve_workload

JUDGE = Judge.from_endpoints(0.96, 0.72)  # down, threshold 0.84
CULPRIT = "1234567890" + "a" * 30
GOOD, BAD = (0.96, 0.96, 0.96), (0.72, 0.72, 0.72)


def revert(value: float | None = 0.96, applied: bool = True, reason: str = "") -> Revert:
    return Revert(CULPRIT, "f" * 40, applied, value, reason)


# --- judging --------------------------------------------------------------------------------------------


def test_values_that_repeat_and_a_revert_on_the_good_side_confirm() -> None:
    c = conclude(JUDGE, GOOD, BAD, revert())
    assert c.status is Status.CONFIRMED and c.good_values == GOOD and c.bad_values == BAD
    assert c.line() == "confirmed: parent 0.96 ×3; first bad 0.72 ×3; bad + revert of 1234567890: 0.96 (good side)"
    assert "spread 0 (parent), 0 (first bad)" in c.reason


def test_a_revert_that_stays_bad_does_not_confirm() -> None:
    c = conclude(JUDGE, GOOD, BAD, revert(0.73))
    assert c.status is Status.NOT_CONFIRMED
    assert "the revert did not bring it back (0.73" in c.reason
    assert "bad + revert of 1234567890: 0.73 (bad side)" in c.line()


def test_without_a_revert_values_that_repeat_are_repeated() -> None:
    why = "the culprit's diff does not reverse on top of ffffffffff"
    c = conclude(JUDGE, GOOD, BAD, revert(None, applied=False, reason=why))
    assert c.status is Status.REPEATED and c.reason.endswith(why)
    assert c.line().startswith("repeated: parent 0.96 ×3; first bad 0.72 ×3 — values repeat")
    failed = conclude(JUDGE, GOOD, BAD, revert(None, reason="bad + revert could not be measured: build failed"))
    assert failed.status is Status.REPEATED and "could not be measured" in failed.reason
    assert conclude(JUDGE, GOOD, BAD, None).status is Status.REPEATED


@pytest.mark.parametrize(
    "good, bad, words",
    [
        ((0.96, 0.80, 0.96), BAD, "parent run 2 gave 0.8, not good"),
        (GOOD, (0.72, 0.72, 0.9), "first bad run 3 gave 0.9, not bad"),
        ((0.96, None, 0.96), BAD, "parent run 2 of 3 gave no value"),
    ],
    ids=["parent bad once", "first bad good once", "a run failed"],
)
def test_values_that_do_not_repeat_are_not_confirmed_whatever_the_revert(
    good: tuple[float | None, ...], bad: tuple[float | None, ...], words: str
) -> None:
    assert words in repeat_problem(JUDGE, good, bad)
    c = conclude(JUDGE, good, bad, revert())
    assert c.status is Status.NOT_CONFIRMED and words in c.reason and c.reason.startswith("the values do not repeat")


def test_spread_and_values_that_differ() -> None:
    assert spread([0.95, 0.96, None, 0.955]) == pytest.approx(0.01) and spread([None]) is None
    c = conclude(JUDGE, (0.95, 0.96, 0.955), BAD, revert())
    assert c.line().startswith("confirmed: parent 0.95, 0.96, 0.955 (spread 0.01); first bad 0.72 ×3")


def test_changed_paths_of_a_diff() -> None:
    diff = (
        "diff --git a/Python/specialize.c b/Python/specialize.c\n--- a/Python/specialize.c\n+++ b/Python/specialize.c\n"
        "diff --git a/Objects/old.c b/Objects/new.c\nrename from Objects/old.c\n"
    )
    assert changed_paths(diff) == ("Python/specialize.c", "Objects/new.c")


# --- JSON and the report ----------------------------------------------------------------------------------


def _report(confirmation: Confirmation | None) -> BisectReport:
    shas = tuple(c * 40 for c in "0123")
    result = BisectResult(shas, JUDGE, (), 1, 2, 1, rounds=1)
    return BisectReport(result, "a / b", "nbody", "v1", "main", {}, "default", confirmation)


def test_the_confirmation_goes_into_markdown_and_json_and_back() -> None:
    c = Confirmation(Status.CONFIRMED, GOOD, BAD, revert(), "values repeat", builds=1, runs=7, seconds=12.5)
    report = _report(c)
    assert f"Confirmation: {c.line()}" in to_markdown(report)
    back = from_json(to_json(report))
    assert back.confirmation == c
    doc = c.to_dict()
    assert doc["status"] == "confirmed" and doc["good_spread"] == 0 and doc["revert"]["applied"]
    assert from_json(to_json(_report(None))).confirmation is None
    assert "Confirmation" not in to_markdown(_report(None))
    assert skipped("--no-confirm").line() == "not run: --no-confirm"


# --- measuring, with fakes ----------------------------------------------------------------------------------


class FakeMeasurer:
    def __init__(self, values: dict[str, float | None]) -> None:
        self.values, self.calls, self.builds = values, [], 0

    def measure(self, commit: CommitInfo, *, fresh: bool = False, extra: tuple[UpstreamPatch, ...] = ()) -> Measured:
        self.calls.append((commit.sha, fresh, extra))
        self.builds += bool(extra)
        value = self.values["revert" if extra else commit.sha]
        outcome = Outcome.ok(value) if value is not None else Outcome.failed(Failure.BUILD_FAILED, "boom")
        return Measured(commit, outcome, Source.MEASURED)


PATH = [CommitInfo(c * 40, c * 40, "2024-01-01", f"commit {c}") for c in "0123"]
RESULT = BisectResult(tuple(c.sha for c in PATH), JUDGE, (), 1, 2, 1)


def _confirm(monkeypatch: pytest.MonkeyPatch, values: dict[str, float | None], patch: Any) -> tuple[Confirmation, Any]:
    monkeypatch.setattr(confirm_mod, "revert_patch", lambda mirror, culprit, parent, bad: patch)
    fake = FakeMeasurer(values)
    seen: list[str] = []
    c = confirm(fake, None, PATH, RESULT, lambda label, *_: seen.append(label), lambda *_: None)  # type: ignore[arg-type]
    return c, (fake, seen)


def test_confirm_measures_six_fresh_runs_and_the_revert(monkeypatch: pytest.MonkeyPatch) -> None:
    patch = UpstreamPatch(Kind.REVERT, PATH[2].sha, "commit 2", ("x.c",), "diff", "revert of the bisect's culprit")
    values = {PATH[1].sha: 0.96, PATH[2].sha: 0.72, "revert": 0.95}
    c, (fake, seen) = _confirm(monkeypatch, values, patch)
    assert c.status is Status.CONFIRMED and c.runs == 7 and c.builds == 1
    assert c.revert == Revert(PATH[2].sha, PATH[3].sha, True, 0.95, "")
    assert all(fresh for _, fresh, _ in fake.calls)
    assert fake.calls[-1] == (PATH[3].sha, True, (patch,))
    assert seen[0] == "confirm parent 1/3" and seen[-1] == f"confirm bad + revert of {PATH[2].short}"


def test_confirm_without_a_revert_or_with_values_that_do_not_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    c, _ = _confirm(monkeypatch, {PATH[1].sha: 0.96, PATH[2].sha: 0.72}, "does not reverse on top of 3333333333")
    assert c.status is Status.REPEATED and c.runs == 6 and not c.revert.applied  # type: ignore[union-attr]
    c, (fake, _) = _confirm(monkeypatch, {PATH[1].sha: 0.96, PATH[2].sha: 0.9}, "unused")
    assert c.status is Status.NOT_CONFIRMED and c.revert is None and len(fake.calls) == 6
    c, _ = _confirm(monkeypatch, {PATH[1].sha: 0.96, PATH[2].sha: 0.72, "revert": None}, _revert_patch())
    assert c.status is Status.REPEATED and "could not be measured: build failed: boom" in c.reason


def _revert_patch() -> UpstreamPatch:
    return UpstreamPatch(Kind.REVERT, PATH[2].sha, "commit 2", ("x.c",), "diff", "revert")


def test_confirm_is_not_run_after_a_range() -> None:
    ranged = BisectResult(RESULT.commits, JUDGE, (), 0, 2, 1)
    c = confirm(FakeMeasurer({}), None, PATH, ranged, lambda *_: None, lambda *_: None)  # type: ignore[arg-type]
    assert c.status is Status.SKIPPED and c.runs == 0


# --- Measurer.measure(fresh=True): past the stored measurements, into nothing -----------------------------------


def test_a_fresh_measurement_neither_reads_nor_stores_the_result_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    metric = parse_metric("a / b")
    commit = PATH[1]
    plans: list[tuple[UpstreamPatch, ...]] = []

    def plan_for(ctx: Any, recipe: Recipe) -> Any:
        plans.append(recipe.extra)
        return SimpleNamespace(key="k" + str(len(recipe.extra)), upstream=recipe.extra, commit=recipe.commit)

    entry = SimpleNamespace(key="k", names=lambda: None)  # an entry without names.json
    monkeypatch.setattr(runner_mod, "plan_for", plan_for)
    monkeypatch.setattr(runner_mod, "obtain", lambda ctx, plan: SimpleNamespace(built=False, plan=plan, entry=entry))
    run = SimpleNamespace(per_loop={"a": 3.0, "b": 4.0}, runs=[SimpleNamespace(run_dir=tmp_path)])
    monkeypatch.setattr(measurer_mod, "run_manual", lambda *args: run)
    ctx = Context(load_settings({"cache_dir": str(tmp_path)}))
    work = resolve_workload("nbody", 2)
    m = Measurer(ctx, metric, work)
    cache = Measurements(ctx.settings.paths.results_db)
    cache.put(commit.sha, "k0", work.ident, counters={"a": 1.0, "b": 4.0})
    assert m.measure(commit).outcome.value == 0.25 and m.measure(commit).source is Source.RESULTS_STORE
    rec = m.measure(commit, fresh=True)
    assert rec.source is Source.MEASURED and rec.outcome.value == 0.75
    assert cache.get(commit.sha, "k0", work.ident).counters == {"a": 1.0, "b": 4.0}  # type: ignore[union-attr]
    rec = m.measure(commit, fresh=True, extra=(_revert_patch(),))
    assert rec.build_key == "k1" and plans[-1] == (_revert_patch(),) and "reverted" in rec.upstream
    assert cache.get(commit.sha, "k1", work.ident) is None


def test_a_stored_measurement_serves_any_metric_of_the_same_build(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every counter is kept, not the metric's inputs: a bisect of another metric at the same commit, build
    and workload runs nothing."""
    commit, runs = PATH[1], []

    def plan_for(ctx: Any, recipe: Recipe) -> Any:
        return SimpleNamespace(key="k", upstream=(), commit=recipe.commit, names=lambda: None)

    def run_manual(*args: Any) -> Any:
        runs.append(args)
        return SimpleNamespace(per_loop={"a": 3.0, "b": 4.0, "c": 6.0}, runs=[SimpleNamespace(run_dir=tmp_path)])

    monkeypatch.setattr(runner_mod, "plan_for", plan_for)
    monkeypatch.setattr(runner_mod, "obtain", lambda ctx, plan: SimpleNamespace(built=True, plan=plan, entry=plan))
    monkeypatch.setattr(measurer_mod, "run_manual", run_manual)
    ctx, work = Context(load_settings({"cache_dir": str(tmp_path)})), resolve_workload("nbody", 2)
    first = Measurer(ctx, parse_metric("a / b"), work).measure(commit)
    assert (first.source, first.outcome.value, len(runs)) == (Source.MEASURED, 0.75, 1)
    other = Measurer(ctx, parse_metric("c / a"), work).measure(commit)
    assert (other.source, other.outcome.value, len(runs)) == (Source.RESULTS_STORE, 2.0, 1)
    assert dict(other.counters) == {"a": 3.0, "b": 4.0, "c": 6.0}


def test_the_revert_is_the_culprits_diff_reversed_with_its_last_newline(monkeypatch: pytest.MonkeyPatch) -> None:
    diff = "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-new\n+old"  # as Mirror.diff gives it
    seen: list[tuple[str, list[str]]] = []
    mirror = SimpleNamespace(
        path=Path("/m"), diff=lambda old, new: diff if (old, new) == (PATH[2].sha, PATH[1].sha) else ""
    )
    fits = [True]
    monkeypatch.setattr(confirm_mod, "applicable", lambda git_dir, sha, texts: seen.append((sha, texts)) or fits)
    patch = confirm_mod.revert_patch(mirror, PATH[2], PATH[1], PATH[3])  # type: ignore[arg-type]
    assert isinstance(patch, UpstreamPatch) and patch.kind is Kind.REVERT and patch.sha == PATH[2].sha
    assert patch.text == diff + "\n" and patch.paths == ("x.c",) and seen == [(PATH[3].sha, [diff + "\n"])]
    fits[0] = False
    assert confirm_mod.revert_patch(mirror, PATH[2], PATH[1], PATH[3]) == (  # type: ignore[arg-type]
        f"the culprit's diff does not reverse on top of {PATH[3].short}"
    )
    assert "changes no file" in confirm_mod.revert_patch(mirror, PATH[1], PATH[2], PATH[3])  # type: ignore[arg-type,operator]
