"""The one registry of allowances (measure/allowances.py): every rule named once, each use reported,
and "exactly" only where no rule was used."""

from __future__ import annotations

import pytest

from pystats_harness.collect.exactness import Rules, judge, load_declared, load_machinery
from pystats_harness.measure import allowances
from pystats_harness.measure.suiteconfig import load_suite

LF = "opcode.LOAD_FAST.execution_count"
SUITE = load_suite()


def test_every_rule_of_the_configs_is_in_the_registry_with_a_reason() -> None:
    rules = allowances.registry(SUITE, load_declared(), load_machinery())
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    assert {"tolerances.object", "tolerances.override[objects.increfs]", "leak_check.rule[gc.*.collections]"} <= set(
        ids
    )
    assert {"leak_check.fixed_part_slack", "deferred", "machinery.time_func", "variable.logging"} <= set(ids)
    assert all(r.reason.strip() for r in rules), [r.id for r in rules if not r.reason.strip()]
    # every allowance of the leak check says what it was measured on; only a counter left out has none
    for rule in (r for r in rules if r.id.startswith("leak_check.rule[")):
        assert rule.kind is allowances.Kind.IGNORE or "(measured: " in rule.reason, rule.id


HITS, MISSES = "objects.method_cache_hits", "objects.method_cache_misses"


@pytest.mark.parametrize(
    "a, b, used",
    [
        ({LF: 10}, {LF: 10}, []),
        ({LF: 10, "objects.allocations": 100}, {LF: 10, "objects.allocations": 103}, ["objects.allocations"]),
        (
            {LF: 10, "objects.allocations": 100, "objects.allocations_from_freelist": 50},
            {LF: 10, "objects.allocations": 140, "objects.allocations_from_freelist": 10},
            ["objects.allocations", "objects.allocations_from_freelist"],
        ),
        (
            {LF: 10, "objects.method_cache_collisions": 3},
            {LF: 10, "objects.method_cache_collisions": 40},
            ["objects.method_cache_collisions"],
        ),
        (
            {LF: 10, "objects.increfs": 1000, MISSES: 300, HITS: 0},
            {LF: 10, "objects.increfs": 700, MISSES: 0, HITS: 300},
            ["objects.increfs", HITS, MISSES],
        ),
    ],
    ids=["equal", "within an allowance", "as a sum", "left out (ASLR)", "increfs net of misses"],
)
def test_a_comparison_says_exactly_only_when_it_used_no_rule(
    a: dict[str, int], b: dict[str, int], used: list[str]
) -> None:
    judgement = judge(a, b, Rules(SUITE))
    described = judgement.describe(Rules(SUITE))
    assert judgement.beyond == ()
    assert sorted(judgement.uses.by_rule) == sorted(f"leak_check.rule[{u}]" for u in used)
    assert ("exactly" in described) == (not used), described
    for rule in used:
        assert f"rule leak_check.rule[{rule}]" in described


@pytest.mark.parametrize(
    "counter, a, b",
    [
        ("gc.0.collections", 1, 900),
        ("gc.1.object_visits", 175_208, 175_208 * 900),
        ("gc.2.objects_collected", 115, 115 * 900),
        ("objects.allocations", 417_128, 397_390),  # leaky_alloc's 10,000 floats (and range's ints)
        ("objects.frees", 2_086_846, 1_393_801),
        ("objects.increfs", 59_444, 14),
        ("opcode.RESUME_CHECK.specialization.miss", 62, 900),
    ],
)
def test_counters_once_left_out_are_compared_by_a_measured_rule(counter: str, a: int, b: int) -> None:
    """gc 900x, an allocation leak: each caught, beyond its rule (collect's agreement and leakage, and
    validate's, use the same rules)."""
    judgement = judge({LF: 10, counter: a}, {LF: 10, counter: b}, Rules(SUITE))
    assert [d.counter for d in judgement.beyond] == [counter]
    assert judgement.status.value == "fail"


def test_collect_compares_increfs_net_of_method_cache_misses_as_validate_does() -> None:
    """1,000 - 300 misses == 700 - 0: equal net of the misses (raw, 30 % apart, beyond 20 + 10 %)."""
    a = {LF: 1, "objects.increfs": 1000, MISSES: 300}
    b = {LF: 1, "objects.increfs": 700, HITS: 300}
    judgement = judge(a, b, Rules(SUITE))
    assert judgement.beyond == ()
    assert judgement.uses.by_rule["leak_check.rule[objects.increfs]"].largest == ("objects.increfs", 1000, 700)
    raw = judge({LF: 1, "objects.increfs": 1000}, {LF: 1, "objects.increfs": 700}, Rules(SUITE))
    assert [d.counter for d in raw.beyond] == ["objects.increfs"]


def test_a_use_names_its_largest_difference() -> None:
    uses = allowances.Uses()
    uses.add("tolerances.object", allowances.Kind.TOLERANCE, "objects.allocations", 100, 105)
    uses.add("tolerances.object", allowances.Kind.TOLERANCE, "objects.frees", 10, 30)
    uses.add(
        "leak_check.rule[objects.method_cache_collisions]", allowances.Kind.IGNORE, "objects.method_cache_collisions"
    )
    assert uses.describe() == (
        "2 counter(s) within rule tolerances.object (largest: objects.frees 10 vs 30); "
        "1 counter(s) not compared (rule leak_check.rule[objects.method_cache_collisions]: objects.method_cache_collisions)"
    )
    assert allowances.exactly_or(allowances.Uses(), 1912) == "1,912 counters equal exactly"
