"""The one registry of allowances (measure/allowances.py): every rule named once, each use reported,
and "exactly" only where no rule was used."""

from __future__ import annotations

import pytest

from pystats_harness.collect.exactness import Rules, judge, load_declared
from pystats_harness.measure import allowances
from pystats_harness.measure.suiteconfig import load_suite

LF = "opcode.LOAD_FAST.execution_count"
SUITE = load_suite()


def test_every_rule_of_the_configs_is_in_the_registry_with_a_reason() -> None:
    rules = allowances.registry(SUITE, load_declared())
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    assert {"tolerances.object", "tolerances.override[objects.increfs]", "leak_check.ignore[gc.*]"} <= set(ids)
    assert {"leak_check.fixed_part_slack", "deferred", "machinery", "variable.logging"} <= set(ids)
    assert all(r.reason.strip() for r in rules), [r.id for r in rules if not r.reason.strip()]


@pytest.mark.parametrize(
    "a, b, leak_check, used",
    [
        ({LF: 10}, {LF: 10}, False, []),
        ({LF: 10, "objects.allocations": 100}, {LF: 10, "objects.allocations": 105}, False, ["tolerances.object"]),
        ({LF: 10, "gc.0.collections": 1}, {LF: 10, "gc.0.collections": 900}, False, ["tolerances.override[gc.*]"]),
        (
            {LF: 10, "objects.allocations": 100},
            {LF: 10, "objects.allocations": 100},
            True,
            ["leak_check.ignore[objects.*]"],
        ),
        (
            {LF: 10, "objects.increfs": 1000, "objects.method_cache_misses": 300},
            {LF: 10, "objects.increfs": 700, "objects.method_cache_misses": 0},
            False,
            ["tolerances.override[objects.increfs]", "tolerances.override[objects.method_cache_*]"],
        ),
    ],
    ids=["equal", "an object counter within its tolerance", "gc not compared", "leak-ignored", "increfs net of misses"],
)
def test_a_comparison_says_exactly_only_when_it_used_no_rule(
    a: dict[str, int], b: dict[str, int], leak_check: bool, used: list[str]
) -> None:
    judgement = judge(a, b, Rules(SUITE), leak_check=leak_check)
    described = judgement.describe(Rules(SUITE))
    assert sorted(judgement.uses.by_rule) == sorted(used)
    assert ("exactly" in described) == (not used), described
    for rule in used:
        assert f"rule {rule}" in described


def test_collect_compares_increfs_net_of_method_cache_misses_as_the_baselines_do() -> None:
    """1,000 - 300 misses == 700 - 0: equal net of the misses (raw, 30 % apart, beyond 20 + 25 %)."""
    a = {LF: 1, "objects.increfs": 1000, "objects.method_cache_misses": 300}
    judgement = judge(a, {LF: 1, "objects.increfs": 700}, Rules(SUITE))
    assert judgement.beyond == ()
    assert judgement.uses.by_rule["tolerances.override[objects.increfs]"].largest == ("objects.increfs", 1000, 700)
    raw = judge({LF: 1, "objects.increfs": 1000}, {LF: 1, "objects.increfs": 700}, Rules(SUITE))
    assert [d.counter for d in raw.beyond] == ["objects.increfs"]


def test_a_use_names_its_largest_difference() -> None:
    uses = allowances.Uses()
    uses.add("tolerances.object", allowances.Kind.TOLERANCE, "objects.allocations", 100, 105)
    uses.add("tolerances.object", allowances.Kind.TOLERANCE, "objects.frees", 10, 30)
    uses.add("leak_check.ignore[gc.*]", allowances.Kind.IGNORE, "gc.0.collections")
    assert uses.describe() == (
        "2 counter(s) within rule tolerances.object (largest: objects.frees 10 vs 30); "
        "1 counter(s) not compared (rule leak_check.ignore[gc.*]: gc.0.collections)"
    )
    assert allowances.exactly_or(allowances.Uses(), 1912) == "1,912 counters equal exactly"
