"""reports/: a run shown in every format, each file written whole by one writer."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pystats_harness.reports import Format, Report, write_files, write_report
from pystats_harness.reports.write import RENDERERS


def _figure() -> object:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1), dpi=50)
    FigureCanvasAgg(fig)
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


def test_a_report_is_written_under_its_own_names(tmp_path: Path) -> None:
    report = Report(
        {Format.JSON: "r.json", Format.MARKDOWN: "r.md", Format.PNG: "r.png"},
        {"schema": "x/1", "where": tmp_path},
        "# title\n",
        _figure,  # type: ignore[arg-type]
    )
    written = write_report(report, tmp_path / "new" / "folder")
    assert {f: p.name for f, p in written.items()} == {
        Format.JSON: "r.json",
        Format.MARKDOWN: "r.md",
        Format.PNG: "r.png",
    }
    assert json.loads(written[Format.JSON].read_text()) == {"schema": "x/1", "where": str(tmp_path)}
    assert written[Format.JSON].read_text().endswith("}\n")
    assert written[Format.MARKDOWN].read_text() == "# title\n"
    assert written[Format.PNG].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in written[Format.JSON].parent.iterdir()) == ["r.json", "r.md", "r.png"]  # no temp file


def test_only_what_is_asked_and_what_there_is_to_show(tmp_path: Path) -> None:
    drawn = []
    report = Report({Format.JSON: "a.json", Format.PNG: "a.png"}, {"a": 1}, None, lambda: drawn.append(1))  # type: ignore[arg-type,func-returns-value]
    written = write_files(
        report, {Format.JSON: None, Format.MARKDOWN: tmp_path / "a.md", Format.PNG: tmp_path / "a.png"}
    )
    assert written == {} and drawn == [1]  # no page to write, a figure of nothing is not saved
    assert list(tmp_path.iterdir()) == []


def test_json_refuses_nan_and_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text('{"old": 1}\n')
    with pytest.raises(ValueError):
        write_files(Report({Format.JSON: "r.json"}, {"value": math.nan}), {Format.JSON: target})
    assert target.read_text() == '{"old": 1}\n' and list(tmp_path.iterdir()) == [target]


def test_every_format_has_its_renderer() -> None:
    assert set(RENDERERS) == set(Format)


def test_html_is_the_markdown_page_self_contained_with_raw_html_shown_as_text(tmp_path: Path) -> None:
    page = (
        "# runs \\| of `main`\n\n[a run](runs/abc.html) ![plot](m.png)\n\n"
        "| unit | reason |\n|---|---|\n| go | <script>alert(1)</script> <http://example.org> |\n"
    )
    written = write_report(Report({Format.HTML: "site/index.html"}, markdown=page), tmp_path)
    text = written[Format.HTML].read_text()
    assert text.startswith("<!DOCTYPE html>") and "<title>runs | of `main`</title>" in text
    assert '<a href="runs/abc.html">a run</a>' in text and '<img alt="plot" src="m.png"' in text
    assert "<table>" in text and "<td>go</td>" in text
    assert "<script" not in text and "&lt;script&gt;" in text and 'href="http' not in text
    assert "<style>" in text and "url(" not in text and "@import" not in text
    assert RENDERERS[Format.HTML](Report({Format.HTML: "x.html"}, data={"a": 1})) is None  # no page, no file
