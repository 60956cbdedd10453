"""Metrics over more than one prefix's hit and miss (pystats_harness/results/metrics.py): a sum over a name
segment (instructions, gc collections, uops per loop) and a family's deferred share, by one unit and over every
stored unit through the store's own series, as ``invoke results --metric`` and publish ask for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pystats_harness.publish.names import headline
from pystats_harness.results import RunRecord, Store, Task, UnitRecord, metrics
from pystats_harness.results.errors import UnknownMetric

VALUES = {
    "opcode.LOAD_ATTR.execution_count": 10.0,
    "opcode.LOAD_ATTR_SLOT.execution_count": 5.0,
    "opcode.LOAD_ATTR.specialization.hit": 6.0,
    "family.LOAD_ATTR.specialization.hit": 6.0,
    "family.LOAD_ATTR.specialization.miss": 2.0,
    "family.LOAD_ATTR.specialization.deferred": 2.0,
    "family.LOAD_ATTR.execution_count": 20.0,
    "family.CALL.execution_count": 4.0,
    "family.CALL.specialization.deferred": 1.0,
    "gc.0.collections": 3.0,
    "gc.2.collections": 1.0,
    "gc.0.objects_collected": 100.0,
}


def test_a_sum_matches_one_name_segment_per_star() -> None:
    assert metrics.value("opcode.*.execution_count", VALUES) == 15.0
    assert metrics.value("gc.*.collections", VALUES) == 4.0
    assert metrics.value("uops.*.execution_count", VALUES) == 0.0  # measured, none counted
    assert metrics.inputs("opcode.*.execution_count", VALUES) == (
        "opcode.LOAD_ATTR.execution_count",
        "opcode.LOAD_ATTR_SLOT.execution_count",
    )
    assert metrics.value("gc.*.collections", {}, measured=False) is None


def test_the_deferred_share_is_of_the_familys_executions() -> None:
    assert metrics.value("family.LOAD_ATTR.specialization.deferred_share", VALUES) == 0.1
    assert metrics.value("family.CALL.specialization.deferred_share", VALUES) == 0.25
    assert metrics.value("family.BINARY_OP.specialization.deferred_share", VALUES) is None  # over nothing
    assert metrics.inputs("family.CALL.specialization.deferred_share") == (
        "family.CALL.specialization.deferred",
        "family.CALL.execution_count",
    )


def test_the_deferred_share_is_summarize_stats_deferred_ratio() -> None:
    # richards on v3.13.5, per loop: the script's total is hit + miss + the base's executions (3.12+)
    richards = {
        "family.LOAD_ATTR.execution_count": 1496124.0,
        "family.LOAD_ATTR.specialization.deferred": 617823.0,
        "family.LOAD_ATTR.specialization.hit": 866379.0,
        "family.LOAD_ATTR.specialization.miss": 629641.0,
        "opcode.LOAD_ATTR.execution_count": 104.0,
    }
    script_total = 866379.0 + 629641.0 + 104.0
    assert metrics.value("family.LOAD_ATTR.specialization.deferred_share", richards) == 617823.0 / script_total
    assert metrics.value("family.LOAD_ATTR.specialization.hit_ratio", VALUES) == 0.75
    assert headline(["family.<family>.x"], [], VALUES) == ["family.CALL.x", "family.LOAD_ATTR.x"]


def _store(path: Path) -> None:
    with Store.open(path) as store:
        for sha, date, scale in (
            ("b" * 40, "2025-07-01T00:00:00+00:00", 2.0),
            ("a" * 40, "2025-06-01T00:00:00+00:00", 1.0),
        ):
            units = (
                UnitRecord("richards", "trusted", "", 10, {k: v * scale for k, v in VALUES.items()}),
                UnitRecord("go", "failed", "no module", None, {}),
            )
            store.record(RunRecord(Task.COLLECT, sha[:7], sha, date, "default", (), units))


def test_the_stores_series_sums_and_shares_ordered_as_a_counters(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    _store(path)
    with Store.open(path, create=False) as store:
        points = store.series("opcode.*.execution_count")
        plain = store.series("opcode.LOAD_ATTR.execution_count")
        assert [(p.run_id, p.unit) for p in points] == [(p.run_id, p.unit) for p in plain]
        assert [p.value for p in points] == [None, 15.0, None, 30.0]  # go (failed) has no value
        share = store.series("family.LOAD_ATTR.specialization.deferred_share", unit="richards")
        assert [p.value for p in share] == [0.1, 0.1]
        assert store.series("gc.*.collections", unit="richards")[0].value == 4.0
        with pytest.raises(UnknownMetric):
            store.series("uops.*.execution_count")
        with pytest.raises(UnknownMetric):
            store.series("family.NOPE.specialization.deferred_share")
