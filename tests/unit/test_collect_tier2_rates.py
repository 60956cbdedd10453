"""collect compare's tier-2 table (pystats_harness/collect/tier2_rates.py)."""

from __future__ import annotations

from pystats_harness.collect import tier2_rates

TRACED = {
    "opcode.LOAD_FAST.execution_count": 60.0,
    "opcode.STORE_FAST.execution_count": 40.0,
    "optimizer.attempts": 4.0,
    "optimizer.traces_created": 1.0,
    "optimizer.traces_executed": 10.0,
    "optimizer.uops_executed": 700.0,
}


def test_rates_of_a_traced_benchmark() -> None:
    r = tier2_rates.rates(TRACED)
    assert r is not None and r.traces
    assert r.created_ratio == 0.25 and r.uops_per_instruction == 7.0


def test_no_optimizer_counters_no_rates_and_no_table() -> None:
    assert tier2_rates.rates({"opcode.LOAD_FAST.execution_count": 5.0}) is None
    assert tier2_rates.table({"base": {"nbody": None}}) == []


def test_untraced_benchmark_says_no_and_dashes_empty_ratios() -> None:
    r = tier2_rates.rates({"optimizer.attempts": 0.0})
    assert r is not None and not r.traces and r.created_ratio is None and r.uops_per_instruction is None
    lines = tier2_rates.table({"head": {"float": r, "nbody": tier2_rates.rates(TRACED)}})
    assert "| head | `float` | no | 0.0 / 0.0 (—) | 0.0 | 0.0 | — |" in lines
    assert "| head | `nbody` | yes | 1.0 / 4.0 (25.0%) | 10.0 | 700.0 | 7.0 |" in lines


def test_collect_leakage_detail_names_the_tier2_uops_it_compared() -> None:
    from pystats_harness.collect import exactness, trust
    from pystats_harness.measure.suiteconfig import load_suite

    rules = exactness.Rules(load_suite(), None)
    counts = {"opcode.A.execution_count": 20, "optimizer.uops_executed": 7000, "uops._LOAD_FAST.execution_count": 7000}
    same = trust.check_leakage(trust.LeakCounts(counts, dict(counts), 2), "", rules)
    assert same.status is exactness.Status.PASS and "20 vs 20 instructions, 7,000 vs 7,000 tier-2 uops" in same.detail
    fewer = trust.check_leakage(
        trust.LeakCounts(counts, {**counts, "uops._LOAD_FAST.execution_count": 6000}, 2), "", rules
    )
    assert fewer.status is exactness.Status.FAIL and "uops._LOAD_FAST.execution_count" in fewer.detail
    plain = trust.check_leakage(
        trust.LeakCounts({"opcode.A.execution_count": 20}, {"opcode.A.execution_count": 20}, 2), "", rules
    )
    assert "tier-2" not in plain.detail
