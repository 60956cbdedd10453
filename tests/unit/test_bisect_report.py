from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from rich.console import Console

from pystats_harness.bisect.judge import Judge
from pystats_harness.bisect.plot import figure
from pystats_harness.bisect.report import (
    BisectReport,
    CommitInfo,
    from_json,
    summary,
    to_json,
    to_markdown,
    to_rich,
)
from pystats_harness.bisect.search import bisect
from pystats_harness.errors import ConfigError
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.reports import Format, Report, write_report

METRIC = "opcode.LOAD_ATTR.specialization.hit / opcode.LOAD_ATTR.execution_count"


def make_report(values: list[float | None]) -> BisectReport:
    commits = [f"{i:02x}" * 20 for i in range(len(values))]

    def measure(i: int) -> Outcome:
        v = values[i]
        return Outcome.failed(Failure.BUILD_FAILED, "make: *** Error 2") if v is None else Outcome.ok(v)

    result = bisect(commits, measure, Judge.from_endpoints(values[0], values[-1]))  # type: ignore[arg-type]
    info = {
        sha: CommitInfo(sha, f"gh-{i}: change | number {i}", f"2025-01-{i % 28 + 1:02d}T12:00:00+00:00")
        for i, sha in enumerate(commits)
    }
    return BisectReport(result, METRIC, "nbody", "v3.13.4", "main", info)


EXACT = [0.9, 0.9, None, 0.9, 0.91, 0.4, None, 0.41, 0.4, 0.4, 0.39, 0.4]
AMBIGUOUS = [0.9, 0.9, 0.9, None, None, 0.4, 0.4]


def test_json_round_trip() -> None:
    report = make_report(EXACT)
    text = to_json(report)
    doc = json.loads(text)
    assert doc["first_bad"]["index"] == 5 and doc["first_bad"]["subject"] == "gh-5: change | number 5"
    assert doc["first_bad"]["date"].startswith("2025-01-06")
    assert doc["judge"]["direction"] == "down" and doc["exact"] is True
    assert [s["index"] for s in doc["skipped"]] == [
        i for i, t in enumerate(EXACT) if t is None and any(x["index"] == i for x in doc["tested"])
    ]
    back = from_json(text)
    assert back.result == report.result
    assert to_json(back) == text
    with pytest.raises(ConfigError, match="schema"):
        from_json('{"schema": "something else"}')


def test_ambiguous_range_in_every_format() -> None:
    report = make_report(AMBIGUOUS)
    assert report.result.first_bad is None and report.result.candidates == (3, 4, 5)
    line = summary(report)
    assert line.startswith("first bad commit is one of 3") and "2 commits in between could not be measured" in line
    doc = json.loads(to_json(report))
    assert doc["first_bad"] is None and [c["index"] for c in doc["candidates"]] == [3, 4, 5]
    assert from_json(to_json(report)).result == report.result
    md = to_markdown(report)
    assert "skipped: build failed: make: *** Error 2" in md and "first bad)" not in md


def test_markdown_and_rich_table() -> None:
    report = make_report(EXACT)
    md = to_markdown(report)
    assert md.startswith("**bisect** `" + METRIC + "` on `nbody`: good v3.13.4 → bad main")
    assert summary(report) in md.splitlines()
    assert "| 5 | `050505050505` | 2025-01-06 | gh-5: change \\| number 5 | 0.4 | **bad (first bad)** |" in md
    assert summary(report).startswith("first bad commit: 050505050505 2025-01-06 gh-5: change | number 5; ")
    console = Console(record=True, width=160)
    console.print(to_rich(report))
    out = console.export_text()
    assert "◀ first bad" in out and "skipped: build failed" in out and "0.91" in out


def test_png_plot_is_written(tmp_path: Path) -> None:
    for name, values in (("exact", EXACT), ("ambiguous", AMBIGUOUS), ("long", [1.0] * 40 + [2.0] * 60)):
        report = make_report(values)
        files = write_report(Report({Format.PNG: f"{name}.png"}, figure=lambda r=report: figure(r)), tmp_path / "plots")
        data = files[Format.PNG].read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000


def test_png_ticks_label_tested_commits_apart_and_the_whole_metric() -> None:
    report = make_report([0.9] * 17 + [0.4] * 15)  # 15, 16, 17 tested: too close to label all three
    (ax,) = figure(report).axes
    ticks = [int(t) for t in ax.get_xticks()]
    tested = sorted(t.index for t in report.result.tested)
    assert set(ticks) < set(tested) and ticks[0] == 0 and ticks[-1] == 31
    assert all(b - a >= 31 / 11 for a, b in itertools.pairwise(ticks))
    assert {int(t) for t in ax.get_xticks(minor=True)} | set(ticks) == set(tested)  # every tested commit marked
    assert "".join(ax.get_ylabel().split()) == METRIC.replace(" ", "")


def test_a_repaired_build_says_so_in_every_format() -> None:
    report = make_report(EXACT)
    sha = report.result.commits[5]
    repaired = "repaired with upstream 23e4f80ce2 (Python/gc.c)"
    infos = dict(report.commit_info)
    infos[sha] = CommitInfo(sha, infos[sha].subject, infos[sha].date, repaired)
    report = BisectReport(report.result, METRIC, "nbody", "v3.13.4", "main", infos)
    assert summary(report).startswith(f"first bad commit: {sha[:12]}") and f"[{repaired}]" in summary(report)
    assert f"[{repaired}]" in to_markdown(report)
    doc = json.loads(to_json(report))
    assert doc["first_bad"]["upstream"] == repaired
    assert from_json(to_json(report)).info(5).upstream == repaired
    console = Console(width=250, record=True)
    console.print(to_rich(report))
    assert "repaired with upstream 23e4f80ce2" in console.export_text()
