"""A finished collect as a run of the results store: a unit per benchmark with its trust verdict, why (the
trust table's detail), its loops and every counter per loop, read back from the published output
(``benchmarks/<name>/collection.json`` divided by its loops: what ``invoke compare`` compares)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pystats_harness.builder.cache import BuildFacts
from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect import one
from pystats_harness.collect.report import detail
from pystats_harness.errors import StatsParseError
from pystats_harness.results import RunRecord, Task, UnitRecord
from pystats_harness.stats.collection import load


def per_loop_values(out: Path, outcome: one.Outcome) -> dict[str, float]:
    """A benchmark's counters per loop; {} when it has no stats (it failed before running)."""
    path = out / "benchmarks" / outcome.name / "collection.json"
    if not path.is_file():
        return {}
    try:
        collection = load(path)
    except StatsParseError:
        return {}
    loops = collection.metadata.get("loops") or outcome.loops
    if not isinstance(loops, int | float) or loops <= 0:
        return {}
    return {name: value / loops for name, value in collection.counters.items()}


def recorded(recipe: Recipe, build: BuildFacts, outcomes: Sequence[one.Outcome], out: Path) -> RunRecord:
    meta = build.stats_metadata(recipe.commit.rev)
    units = tuple(UnitRecord(o.name, o.verdict.value, detail(o), o.loops, per_loop_values(out, o)) for o in outcomes)
    return RunRecord(
        Task.COLLECT,
        recipe.commit.rev,
        recipe.commit.sha,
        recipe.commit.date,
        recipe.config,
        tuple(meta.get("patches", [])),
        units,
        extra={
            "out": str(out),
            "build_key": build.key,
            "python_version": meta.get("python_version"),
            **({"upstream": meta["upstream"]} if meta.get("upstream") else {}),
        },
    )
