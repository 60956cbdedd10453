from __future__ import annotations

from fractions import Fraction

import pytest

from pystats_harness.errors import BaselineMismatch, CanaryMismatch, FingerprintFailed, LeakageFound, NoBaseline
from pystats_harness.validate.baseline import deviations, net_counts
from pystats_harness.validate.report import StepResult, ValidationReport, to_markdown
from pystats_harness.validate.suiteconfig import load_suite

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
    ]
    assert len(set(codes)) == 5 and 0 not in codes


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
