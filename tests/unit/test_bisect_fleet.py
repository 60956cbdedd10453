"""The bisect driver over a fleet (no engine): K commits a round on a cluster, one at a time here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pystats_harness.bisect.driver import Progress, _search_with
from pystats_harness.config import load_settings
from pystats_harness.errors import HarnessError
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.measure.fleet import Fleet
from pystats_harness.measure.measurer import Measured, MeasureWork, Source
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.measure.workload import resolve_workload

PATH = [CommitInfo(f"c{i}", f"{i:040x}", "2024-01-01T00:00:00+00:00", f"commit {i}") for i in range(41)]


class Lined:
    """A dispatcher of ``width`` that answers each unit's commit from ``values`` (None: its build failed)
    and notes each batch of units it was given."""

    def __init__(self, width: int, values: Sequence[float | None]) -> None:
        self.width, self.where, self.unfit, self.sent = width, "test", {}, 0
        self.values, self.batches = values, list[list[int]]()

    def run(self, units: Sequence[Any]) -> list[tuple[Measured, ...]]:
        commits = [u.recipe.commit for u in units]
        self.batches.append([int(c.sha, 16) for c in commits])
        out: list[tuple[Measured, ...]] = []
        for c in commits:
            v = self.values[int(c.sha, 16)]
            outcome = Outcome.failed(Failure.BUILD_FAILED, "broken") if v is None else Outcome.ok(v)
            out.append((Measured(c, outcome, Source.MEASURED, built=True, worker=f"w{len(out)}"),))
        return out


def fleet(width: int, values: Sequence[float | None]) -> tuple[Fleet, list[list[int]]]:
    lined = Lined(width, values)
    return Fleet(lined, MeasureWork("x", (("nbody", 1),))), lined.batches


@pytest.mark.parametrize(("width", "rounds"), [(1, 6), (2, 4), (4, 3)])
def test_rounds_shrink_with_workers_and_find_the_same_commit(width: int, rounds: int) -> None:
    values = [0.0] * 23 + [1.0] * 18
    f, batches = fleet(width, values)
    search = _search_with(f, Progress(), PATH, parse_metric("x"), ("good", "bad"), None, None)
    assert search.result.first_bad == 23 and search.result.rounds <= rounds
    assert batches[0] == ([0] if width == 1 else [0, 40])  # the endpoints: together on a cluster
    assert all(len(b) <= width for b in batches[1:])
    word = "step" if width == 1 else "round"
    assert {label.split()[0] for i, label in search.labels.items() if i not in (0, 40)} == {word}
    assert f.builds == sum(len(b) for b in batches)


def test_a_failed_good_end_stops_before_building_bad_here() -> None:
    f, batches = fleet(1, [None] + [1.0] * 40)
    with pytest.raises(HarnessError, match="cannot measure --good"):
        _search_with(f, Progress(), PATH, parse_metric("x"), ("good", "bad"), None, None)
    assert batches == [[0]]


def test_a_script_sent_with_a_unit_keeps_its_result_cache_identity(tmp_path: Path) -> None:
    script = tmp_path / "mine" / "float_adds.py"
    script.parent.mkdir()
    script.write_text("def run(loops):\n    return sum(1.5 for _ in range(loops))\n")
    here = resolve_workload(str(script), 7)
    worker = Context(load_settings({"cache_dir": str(tmp_path / "worker")}))
    work = MeasureWork("x", ((str(script), 7),), ((str(script), script.read_bytes()),))
    there = work._workload(worker, str(script), 7)
    assert there.ident == here.ident and there.loops == 7
    assert Path(there.target).read_bytes() == script.read_bytes() and str(tmp_path / "worker") in there.target
    assert work._workload(worker, str(script), 7).target == there.target  # written once
