"""The results store: every run recorded in one SQLite file under the cache (docs/results.md)."""

from pystats_harness.results.records import (
    Measurement,
    MergeResult,
    Point,
    RunRecord,
    RunSummary,
    Task,
    UnitRecord,
)
from pystats_harness.results.store import Store

__all__ = ["Measurement", "MergeResult", "Point", "RunRecord", "RunSummary", "Store", "Task", "UnitRecord"]
