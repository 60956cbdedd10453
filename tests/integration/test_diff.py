"""`invoke diff` on real builds (the cached v3.11.2 and v3.13.5 default builds), one fast benchmark:
the same revision on both sides flags nothing and exits 0; 3.11.2 against 3.13.5 flags FOR_ITER's new
specializations, runs the base's loops on the head, and 3.13.5's own summarize_stats.py renders both
exports with the harness's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness.stats.collection import load
from tests.support.invoke_runner import Harness
from tests.support.rendered import count, html_tables

pytestmark = pytest.mark.usefixtures("benchmark_wheelhouse")


def _diff(harness: Harness, out: Path, *args: str) -> tuple[int, str, dict]:
    result = harness.invoke("diff", "--benchmarks", "nbody", "--out", str(out), *args)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").is_file() else {}
    return result.returncode, result.stdout + result.stderr, report


def test_the_same_revision_on_both_sides_flags_nothing_and_exits_0(harness: Harness, tmp_path: Path) -> None:
    loops = tmp_path / "loops.json"  # few loops, no calibration: the cheapest collect there is
    loops.write_text(json.dumps({"schema": "pystats-harness-loops/1", "loops": {"nbody": 2}}))
    code, said, report = _diff(
        harness, tmp_path / "d", "--base", "v3.13.5", "--head", "v3.13.5", "--loops-file", str(loops)
    )
    assert code == 0, said[-4000:]
    assert report["exit_code"] == 0 and report["flagged"] == [] and report["same_build"] is True
    assert report["verdicts"]["nbody"]["trusted"] is True
    assert "### Flagged changes (0)\n\nNo interesting change." in (tmp_path / "d" / "report.md").read_text()
    assert "Flagged changes (0)" in said and str(tmp_path / "d" / "report.md") in said
    for side in ("base", "head"):
        assert json.loads((tmp_path / "d" / side / "loops.json").read_text())["loops"] == {"nbody": 2}
    assert (
        (tmp_path / "d" / "summarize_stats.md")
        .read_text()
        .startswith("<!-- Tools/scripts/summarize_stats.py of v3.13.5")
    )


def test_311_against_313_flags_changes_and_313s_script_renders_both(harness: Harness, tmp_path: Path) -> None:
    out = tmp_path / "d"
    code, said, report = _diff(harness, out, "--base", "v3.11.2", "--head", "v3.13.5")
    assert code in (38, 39), said[-4000:]  # flagged; 39 only if a side is not trusted, which the report says
    sides = report["verdicts"]["nbody"]
    failing = {sides["base"], sides["head"]} & {"failed", "untrusted", "lossy"}  # partial: marked, not failing
    assert code == report["exit_code"] == (39 if failing else 38), sides
    flagged = {(c["benchmark"], c["family"], c["metric"]) for c in report["flagged"]}
    assert ("nbody", "FOR_ITER", "hit_ratio") in flagged  # 3.12 added FOR_ITER_LIST/RANGE/...
    text = (out / "report.md").read_text()
    assert text.index("### Flagged changes") < text.index("### Suite summary") < text.index("### Verdicts")
    assert "| `nbody` | `FOR_ITER` hit ratio |" in text or "| `nbody` ⚠" in text
    base_loops = json.loads((out / "base" / "loops.json").read_text())["loops"]
    assert base_loops == json.loads((out / "head" / "loops.json").read_text())["loops"] and base_loops["nbody"] > 0
    rendering = (out / "summarize_stats.md").read_text()
    assert rendering.startswith("<!-- Tools/scripts/summarize_stats.py of v3.13.5")
    rows = {row[0]: row for row in html_tables(rendering)[("Execution counts", "")][0]}
    totals = [load(out / side / "all" / "collection.json").counters for side in ("base", "head")]
    shown = [count(rows["BINARY_OP"][1]), count(rows["BINARY_OP"][2])]
    assert shown == [t["opcode.BINARY_OP.execution_count"] for t in totals]
