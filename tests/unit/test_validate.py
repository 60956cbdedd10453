from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pystats_harness.errors import (
    BaselineMismatch,
    CanaryMismatch,
    ConfigError,
    FingerprintFailed,
    LeakageFound,
    NoBaseline,
    ValidationPartial,
)
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.validate.baseline import AllowanceUse, deviations, net_counts, worst_use
from pystats_harness.validate.driver import choose_workloads
from pystats_harness.validate.plot import allowance_label, bar_length
from pystats_harness.validate.report import StepResult, ValidationReport, to_markdown

META = {"revision": "v3.13.5", "sha": "a" * 40, "python_version": "3.13.5", "patches": [], "workloads": {"nbody": 10}}


def report(*statuses: str) -> ValidationReport:
    names = ("fingerprint", "canaries", "leakage", "isolation", "baselines")
    return ValidationReport(META, tuple(StepResult(n, s, f"{n} {s}") for n, s in zip(names, statuses, strict=False)))


@pytest.mark.parametrize(
    "statuses, error",
    [
        (("pass",) * 5, None),
        (("fail", "pass", "fail", "pass", "fail"), FingerprintFailed),
        (("pass", "fail", "pass", "pass", "pass"), CanaryMismatch),
        (("pass", "pass", "fail", "pass", "no baseline"), LeakageFound),
        (("pass", "pass", "pass", "fail", "pass"), LeakageFound),
        (("pass", "pass", "pass", "pass", "fail"), BaselineMismatch),
        (("pass", "pass", "pass", "pass", "no baseline"), NoBaseline),
    ],
    ids=[
        "all good",
        "fingerprint first",
        "canary",
        "leakage before no baseline",
        "isolation",
        "baseline",
        "no baseline",
    ],
)
def test_exit_code_per_outcome(statuses: tuple[str, ...], error: type | None) -> None:
    got = report(*statuses).error(require_baseline=True)
    assert (type(got) if got else None) is error
    if got is not None and statuses.count("fail") > 1:
        assert "leakage" in str(got) and "fingerprint" in str(got)  # every failed step is named


def test_a_version_without_baseline_passes_unless_one_is_required() -> None:
    """Development commits have no recorded baseline: the step is skipped, not failed."""
    skipped = report("pass", "pass", "pass", "pass", "no baseline")
    assert skipped.error() is None
    required = skipped.error(require_baseline=True)
    assert isinstance(required, NoBaseline) and "invoke baseline --rev v3.13.5" in str(required)
    assert isinstance(report("pass", "pass", "fail", "pass", "no baseline").error(), LeakageFound)


def test_distinct_codes() -> None:
    codes = [
        FingerprintFailed.exit_code,
        CanaryMismatch.exit_code,
        LeakageFound.exit_code,
        BaselineMismatch.exit_code,
        NoBaseline.exit_code,
        ValidationPartial.exit_code,
    ]
    assert len(set(codes)) == 6 and 0 not in codes


def test_baseline_net_and_tolerances() -> None:
    suite = load_suite()
    counts = net_counts(
        {"opcode.A.execution_count": 110, "objects.allocations": 500, "opcode.B.execution_count": 3},
        {"opcode.A.execution_count": 10, "opcode.B.execution_count": 3},
    )
    assert counts == {"opcode.A.execution_count": 100, "objects.allocations": 500}  # zeros left out
    net = {n: Fraction(v, 10) for n, v in counts.items()}
    assert deviations(net, dict(net), suite) == []
    bad = deviations(net, {"opcode.A.execution_count": Fraction(101, 10), "objects.allocations": Fraction(52)}, suite)
    assert [d.name for d in bad] == ["opcode.A.execution_count"]  # exact; objects allowed ±20+10%
    assert deviations({"objects.method_cache_hits": 1}, {"objects.method_cache_hits": 900}, suite) == []


def test_markdown_lists_failing_findings() -> None:
    r = ValidationReport(
        META,
        (
            StepResult(
                "leakage",
                "fail",
                "1 counter leaks",
                (
                    {
                        "workload": "leaky",
                        "check": "automated vs manual",
                        "counter": "opcode.X.execution_count",
                        "a": 3,
                        "b": 1,
                    },
                ),
            ),
        ),
    )
    md = to_markdown(r)
    assert "| leakage | fail |" in md and "opcode.X.execution_count" in md and "<details>" in md


# --- what is chosen ---------------------------------------------------------------------------------


@pytest.mark.parametrize("selection", [",", "", " , ,"])
def test_an_empty_selection_is_exit_2_naming_the_known_workloads(selection: str) -> None:
    suite = load_suite()
    with pytest.raises(ConfigError, match="names no workload") as info:
        choose_workloads(suite, selection)
    message = str(info.value)
    assert info.value.exit_code == 2 and "\n" not in message
    assert all(w in message for w in [*suite.workloads, "leaky", "null"])
    assert "leave --workloads out" in message  # what to try


def test_an_unknown_workload_is_exit_2_naming_every_known_one() -> None:
    suite = load_suite()
    with pytest.raises(ConfigError, match="unknown workload 'nbdoy'") as info:
        choose_workloads(suite, "nbody,nbdoy")
    assert info.value.exit_code == 2
    assert all(w in str(info.value) for w in [*suite.workloads, "leaky", "null"])


def test_no_selection_is_every_suite_workload_and_names_keep_their_loops() -> None:
    suite = load_suite()
    assert choose_workloads(suite, None) == suite.workloads
    assert choose_workloads(suite, " richards , leaky") == {"richards": 10, "leaky": min(suite.workloads.values())}


# --- --strict ---------------------------------------------------------------------------------------


def test_a_partial_step_fails_only_with_strict() -> None:
    partial = report("pass", "partial", "pass", "pass", "pass")
    assert partial.error() is None
    got = partial.error(strict=True)
    assert isinstance(got, ValidationPartial) and got.exit_code == 19
    assert "canaries" in str(got) and "canaries partial" in str(got) and "\n" not in str(got)
    assert isinstance(report("pass", "partial", "fail", "pass", "pass").error(strict=True), LeakageFound)
    assert report("pass", "pass", "pass", "pass", "pass").error(strict=True) is None


def test_partial_is_never_shown_as_pass() -> None:
    md = to_markdown(report("pass", "partial", "pass", "pass", "pass"))
    assert "| canaries | partial |" in md and "| canaries | pass |" not in md


# --- how much of its allowance the worst counter used ------------------------------------------------

EXEC = "opcode.A.execution_count"


@pytest.mark.parametrize(
    "new, counter, deviation, allowed, used",
    [
        ({EXEC: 10.0, "objects.allocations": 50.0}, None, 0.0, 0.0, 0.0),  # nothing differs: exact (0 of 0)
        ({EXEC: 10.0, "objects.allocations": 62.5}, "objects.allocations", 12.5, 25.0, 0.5),  # ±20 + 10 % of 50
        ({EXEC: 10.0, "objects.allocations": 80.0}, "objects.allocations", 30.0, 25.0, 1.2),
        ({EXEC: 10.5, "objects.allocations": 62.5}, EXEC, 0.5, 0.0, None),  # exact and off: before all others
        ({EXEC: 10.0, "objects.allocations": 50.0, "objects.method_cache_hits": 9e9}, None, 0.0, 0.0, 0.0),  # ignored
    ],
    ids=["identical", "half the allowance", "over", "exact counter off", "ignored counters"],
)
def test_worst_counter_and_the_share_of_its_allowance(
    new: dict[str, float], counter: str | None, deviation: float, allowed: float, used: float | None
) -> None:
    base = {EXEC: 10.0, "objects.allocations": 50.0}
    got = worst_use(base, new, load_suite())
    assert (got.counter, got.deviation, got.allowed, got.used) == (counter, deviation, allowed, used)
    assert got.compared == 2
    assert (got.used is not None and got.used <= 1) == (deviations(base, new, load_suite()) == [])


def test_allowance_labels_name_the_counter_and_the_allowance() -> None:
    assert allowance_label(AllowanceUse("objects.frees", 12.5, 25.0, 9)) == "objects.frees: 12.5 of 25 allowed (50 %)"
    assert allowance_label(AllowanceUse("objects.frees", 0.05, 41.8, 9)).endswith("0.05 of 41.8 allowed (0.12 %)")
    assert allowance_label(AllowanceUse("objects.increfs", 8001.2, 53750.0, 9)).endswith(
        "8,001 of 53,750 allowed (15 %)"
    )
    exact = AllowanceUse(None, 0.0, 0.0, 812)
    assert allowance_label(exact).startswith("exact (0 of 0)") and "812" in allowance_label(exact)
    assert bar_length(exact) > 0  # stays visible
    off = AllowanceUse(EXEC, 0.5, 0.0, 9)
    assert allowance_label(off) == f"{EXEC}: 0.5 of 0 allowed (compared exactly)" and bar_length(off) > 1
    assert allowance_label(None) == "no baseline"


def test_deviation_in_the_json_is_machine_readable() -> None:
    uses = {"nbody": AllowanceUse("objects.frees", 12.5, 25.0, 9), "richards": AllowanceUse(None, 0.0, 0.0, 7)}
    doc = json.loads(json.dumps(ValidationReport(META, (), uses).to_dict()))
    assert doc["deviation"] == {
        "nbody": {"counter": "objects.frees", "deviation": 12.5, "allowed": 25.0, "used": 0.5, "compared": 9},
        "richards": {"counter": None, "deviation": 0.0, "allowed": 0.0, "used": 0.0, "compared": 7},
    }


def test_a_baseline_compares_resumes_forms_as_their_sum() -> None:
    """3.15: one RESUME_CHECK miss more moves an execution (and its pairs) to RESUME: the baseline
    compares the sum over RESUME's forms, exactly, so that passes and a lost execution does not."""
    suite = load_suite()
    base = {"opcode.RESUME.execution_count": Fraction(8, 10), "opcode.RESUME_CHECK.execution_count": Fraction(7296)}
    base |= {"pair.CACHE.RESUME": Fraction(3, 10), "pair.CACHE.RESUME_CHECK": Fraction(7292)}
    moved = {
        "opcode.RESUME.execution_count": Fraction(9, 10),
        "opcode.RESUME_CHECK.execution_count": Fraction(72959, 10),
    }
    moved |= {"pair.CACHE.RESUME": Fraction(4, 10), "pair.CACHE.RESUME_CHECK": Fraction(72919, 10)}
    assert deviations(base, moved, suite) == []
    lost = dict(moved, **{"opcode.RESUME_CHECK.execution_count": Fraction(72958, 10)})
    assert [d.name for d in deviations(base, lost, suite)] == [
        "opcode.RESUME.execution_count",
        "opcode.RESUME_CHECK.execution_count",
    ]
