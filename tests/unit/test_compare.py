from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from pystats_harness.errors import ConfigError, StatsParseError
from pystats_harness.stats.collection import Collection, collect, per_loop
from pystats_harness.stats.compare import compare, to_json, to_markdown, to_rich
from pystats_harness.stats.dumps import parse_files
from pystats_harness.stats.names import NameTables
from pystats_harness.stats.summarize import Mismatch, crosscheck

DATA = Path(__file__).resolve().parents[1] / "data" / "dumps"

BASE = Collection(
    {"revision": "v1", "sha": "a" * 40, "python_version": "3.13.5", "nfiles": 2},
    {
        "opcode.A.execution_count": 100,
        "opcode.B.execution_count": 10,
        "gone": 5,
        "same": 7,
        "family.A.execution_count": 110,
        "small": 1000,
    },
)
HEAD = Collection(
    {"revision": "v2", "sha": "b" * 40, "python_version": "3.13.5", "nfiles": 2},
    {
        "opcode.A.execution_count": 150,
        "opcode.B.execution_count": 5,
        "new": 3,
        "same": 7,
        "family.A.execution_count": 155,
        "small": 1010,
    },
)


def test_rows_sorted_by_relative_change() -> None:
    c = compare(BASE, HEAD)
    assert [r.name for r in c.rows] == [
        "new",
        "gone",
        "opcode.A.execution_count",
        "opcode.B.execution_count",
        "small",
        "same",
    ]  # A and B tie at 50%: the larger delta first
    rows = {r.name: r for r in c.rows}
    assert rows["new"].status == "new" and rows["new"].base is None and rows["new"].change == math.inf
    assert rows["gone"].status == "gone" and rows["gone"].change == -1.0 and rows["gone"].ratio == 0
    assert rows["opcode.A.execution_count"].delta == 50 and rows["opcode.A.execution_count"].ratio == 1.5
    assert rows["same"].status == "same" and c.hidden == 0


def test_threshold_and_family_view() -> None:
    c = compare(BASE, HEAD, threshold=0.05)
    assert {r.name for r in c.rows} == {"new", "gone", "opcode.B.execution_count", "opcode.A.execution_count"}
    assert c.hidden == 2
    fam = compare(BASE, HEAD, family_view=True)
    assert "family.A.execution_count" in {r.name for r in fam.rows}
    assert not any(r.name.startswith("opcode.") for r in fam.rows)
    with pytest.raises(ConfigError, match="threshold"):
        compare(BASE, HEAD, threshold=-1)
    with pytest.raises(ConfigError, match="per-loop"):
        compare(per_loop(BASE, 2), HEAD)
    unnamed = Collection(dict(BASE.metadata, naming="numeric-unnamed"), {"opcode.93.execution_count": 1})
    with pytest.raises(ConfigError, match=r"names.json"):
        compare(unnamed, HEAD)
    assert compare(unnamed, unnamed).rows[0].status == "same"


def test_markdown_is_a_pasteable_table() -> None:
    md = to_markdown(compare(BASE, HEAD, threshold=0.05), limit=3)
    assert "opcode.B" not in md
    md = to_markdown(compare(BASE, HEAD, threshold=0.05), limit=4)
    lines = md.splitlines()
    assert lines[0].startswith("**pystats**: base v1 (aaaaaaaaaaaa), Python 3.13.5, 2 files → head v2")
    assert lines[2] == "| Counter | Base | Head | Δ | Change |" and lines[3] == "|:---|---:|---:|---:|---:|"
    assert "| `new` | – | 3 | +3 | new |" in lines and "| `opcode.B.execution_count` | 10 | 5 | -5 | -50.0% |" in lines
    assert lines[-1] == "_2 counters below the ±5.0% threshold._"
    per = to_markdown(compare(per_loop(BASE, 3), per_loop(HEAD, 3)))
    assert "(per loop)" in per and "| 33.33 | 50 |" in per


def test_rich_table_and_json() -> None:
    console = Console(record=True, width=140)
    console.print(to_rich(compare(BASE, HEAD), limit=2))
    text = console.export_text()
    assert "new" in text and "gone" in text and "4 more rows not shown" in text
    doc = json.loads(to_json(compare(BASE, HEAD)))
    assert doc["schema"] == "pystats-harness/compare/1" and doc["base"]["revision"] == "v1"
    first = doc["rows"][0]
    assert first == {"name": "new", "base": None, "head": 3, "delta": 3, "ratio": None, "change": None, "status": "new"}


# --- cross-check against CPython's own summarize_stats.py ----------------------------------------------


def golden(version: str) -> tuple[Collection, NameTables]:
    names = NameTables.from_dict(json.loads((DATA / version / "names.json").read_text()))
    return collect(sorted((DATA / version / "run1").glob("*.txt")), names, {}), names


def test_crosscheck_311_markdown() -> None:
    collection, _ = golden("3.11.2")
    markdown = gzip.decompress((DATA / "3.11.2" / "summarize-run1.md.gz").read_bytes()).decode()
    assert crosscheck(collection, markdown) == []
    counters = dict(collection.counters)
    counters["opcode.LOAD_ATTR.specialization.hit"] += 1
    counters["opcode.NOT_EXECUTED.execution_count"] = 4
    broken = Collection(collection.metadata, counters)
    assert crosscheck(broken, markdown) == [
        Mismatch(
            "opcode.LOAD_ATTR.specialization.hit",
            counters["opcode.LOAD_ATTR.specialization.hit"],
            counters["opcode.LOAD_ATTR.specialization.hit"] - 1,
        ),
        Mismatch("opcode.NOT_EXECUTED.execution_count", 4, None),
    ]


def test_crosscheck_313_json() -> None:
    collection, names = golden("3.13.5")
    doc = json.loads(gzip.decompress((DATA / "3.13.5" / "summarize-run1.json.gz").read_bytes()))
    assert crosscheck(collection, json.dumps(doc)) == [] and crosscheck(collection, doc, names) == []
    assert crosscheck(Collection(dict(collection.metadata, nfiles=3), collection.counters), doc) == [
        Mismatch("__nfiles__", 3, 2)
    ]


def test_crosscheck_numeric_json_needs_names() -> None:
    collection, names = golden("3.11.2")  # a 3.12-style --json-output: summed raw numeric keys
    paths = sorted((DATA / "3.11.2" / "run1").glob("*.txt"))
    doc = dict(parse_files(paths).raw, __nfiles__=1, _defines={})
    assert crosscheck(collection, doc, names) == []
    with pytest.raises(ConfigError, match=r"names.json"):
        crosscheck(collection, doc)
    with pytest.raises(StatsParseError, match="no execution counts"):
        crosscheck(collection, "# nothing here\n")
    with pytest.raises(StatsParseError, match="invalid"):
        crosscheck(collection, "{oops")
