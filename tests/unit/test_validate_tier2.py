"""validate on a build that traces hot loops into tier 2 (pystats_harness/validate/tier2.py)."""

from __future__ import annotations

from typing import Any

from pystats_harness.validate import tier2
from pystats_harness.validate.report import StepStatus

N = 1000


def dump(uops: dict[str, int], traces: int = 0) -> str:
    lines = [f"Optimization traces executed: {traces}"]
    lines += [f"uops[{name}].execution_count : {n}" for name, n in uops.items()]
    return "\n".join(lines) + "\nopcode[LOAD_FAST].execution_count : 7\n"


def mismatch(family: str, expected: int, observed: int) -> dict[str, Any]:
    return {"canary": "arith", "family": family, "expected": expected, "observed": observed}


def test_only_tracing_configurations_trace() -> None:
    assert tier2.traces({"configuration": "tier2"}) and tier2.traces({"configuration": "jit"})
    assert not tier2.traces({"configuration": "default"}) and not tier2.traces({})


def test_uop_counts_sum_dumps_and_underscore_old_names() -> None:
    text = dump({"_LOAD_FAST": 3, "STORE_FAST": 2}) + dump({"_LOAD_FAST": 4})
    assert tier2.uop_counts(text) == {"_LOAD_FAST": 7, "_STORE_FAST": 2}


def test_traced_loop_becomes_partial_with_uops_per_iteration() -> None:
    texts = [
        dump({"_LOAD_FAST": 10 + 3 * N, "_JUMP_TO_TOP": 5 + N}, 1),
        dump({"_LOAD_FAST": 10 + 6 * N, "_JUMP_TO_TOP": 5 + 2 * N}, 1),
    ]
    found = [mismatch("LOAD_FAST", 3 * N, 0), mismatch("FOR_ITER", N, 0)]
    (got,) = tier2.tier2_accounting("arith", N, texts, found)
    assert got["family"] == "tier 1 (traced: 4 uops per iteration)"
    assert "every uop's count a whole multiple of N" in got["cannot_count"]
    assert "tier-1 counts per iteration do not follow dis" in got["cannot_count"]
    assert got["uops_per_iteration"] == {"_JUMP_TO_TOP": 1, "_LOAD_FAST": 3}
    assert got["tier1_per_iteration"] == {"LOAD_FAST": 0, "FOR_ITER": 0} and got["mismatches"] == found


def test_ragged_uop_and_tier1_counts_are_named() -> None:
    texts = [dump({"_LOAD_FAST": 0}), dump({"_LOAD_FAST": 3 * N + 1})]
    (got,) = tier2.tier2_accounting("arith", N, texts, [mismatch("LOAD_FAST", 3 * N, 7)])
    assert "not a whole multiple of N: _LOAD_FAST" in got["cannot_count"]
    assert "tier-1 families not a whole multiple of N: LOAD_FAST" in got["cannot_count"]


def test_untraced_mismatch_stays_a_failure_and_exact_stays_exact() -> None:
    found = [mismatch("LOAD_FAST", 3 * N, 0)]
    same = dump({"_LOAD_FAST": 5})
    assert tier2.tier2_accounting("arith", N, [same, same], found) == found
    assert tier2.tier2_accounting("arith", N, [dump({}), dump({"_LOAD_FAST": N})], []) == []


def test_leak_verdict_is_partial_with_the_reason_when_tracing() -> None:
    status, text = tier2.leak_verdict(9, True, "12 counters equal exactly")
    assert status is StepStatus.PARTIAL and "outside-the-bracket check (b) not made" in text
    assert text.startswith("no leakage in 9 workloads (automated vs manual: 12 counters equal exactly); ")
    assert tier2.leak_verdict(9, False, "12 counters equal exactly")[0] is StepStatus.PASS


LOOP = {"offset": 74, "uops": ["_LOAD_FAST", "_LOAD_FAST", "_LOAD_FAST", "_JUMP_TO_TOP"]}


def test_a_loop_whose_uops_equal_its_trace_is_proven() -> None:
    texts = [
        dump({"_LOAD_FAST": 10 + 3 * N, "_JUMP_TO_TOP": 5 + N}, 1),
        dump({"_LOAD_FAST": 10 + 6 * N, "_JUMP_TO_TOP": 5 + 2 * N}, 1),
    ]
    found = [mismatch("LOAD_FAST", 3 * N, 0)]
    assert tier2.tier2_accounting("arith", N, texts, found, LOOP) == [{"canary": "arith", "proven": 4, "trace": LOOP}]
    exact, rest, note = tier2.proven([{"canary": "arith", "proven": 4}, {"canary": "calls", "cannot_count": "x"}])
    assert [f["canary"] for f in exact] == ["arith"] and [f["canary"] for f in rest] == ["calls"]
    assert note == "; traced, exact by tier-2 accounting (uops per iteration == the loop trace's): arith (4 uops)"
    assert tier2.proven([{"canary": "calls", "cannot_count": "x"}])[2] == ""


def test_a_trace_that_differs_or_tier1_still_counting_is_not_proven() -> None:
    texts = [dump({"_LOAD_FAST": 0}), dump({"_LOAD_FAST": 4 * N})]
    (got,) = tier2.tier2_accounting("arith", N, texts, [mismatch("LOAD_FAST", 3 * N, 0)], LOOP)
    assert (
        "the loop trace's 4 uops differ from those per iteration (+1 _LOAD_FAST; -1 _JUMP_TO_TOP)"
        in got["cannot_count"]
    )
    (got,) = tier2.tier2_accounting(
        "arith", N, texts, [mismatch("CALL", 3 * N, N)], {"offset": 1, "uops": ["_LOAD_FAST"] * 4}
    )
    assert "cannot_count" in got and got["tier1_per_iteration"] == {"CALL": 1}
    (got,) = tier2.tier2_accounting("arith", N, texts, [mismatch("LOAD_FAST", 3 * N, 0)], None)
    assert "no loop trace found after the run" in got["cannot_count"]
