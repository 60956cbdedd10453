"""What `invoke stats` prints, on the real 3.13.5 and 3.11.2 dumps: the header's totals, per family hit %
and miss % as the revision's own summarize_stats.py computes them, deferred, '–' where a family cannot
specialize, failure kinds (named with the build's tables, kind_N without, and a line saying so), the
same columns in the terminal and in Markdown, and at most 100 columns when not at a terminal."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from pystats_harness.console import READING_WIDTH
from pystats_harness.stats import summary
from pystats_harness.stats.collection import Collection, dump_files, from_dump
from pystats_harness.stats.dumps import DumpResult, parse_files
from pystats_harness.stats.family_rows import FamilyRow, families, header
from pystats_harness.stats.names import NameTables
from tests.support.invoke_runner import invoke_in

DATA = Path(__file__).resolve().parents[1] / "data" / "dumps"


def dump(version: str) -> DumpResult:
    return parse_files(dump_files(DATA / version / "run1"))


def collection(version: str, *, named: bool) -> Collection:
    names = NameTables.from_dict(json.loads((DATA / version / "names.json").read_text())) if named else None
    return from_dump(dump(version), names, {"revision": f"v{version}"} if named else {})


def rows(c: Collection) -> dict[str, FamilyRow]:
    return {row.family: row for row in families(c, 1000)[0]}


def rendered(c: Collection, width: int = READING_WIDTH) -> str:
    out = StringIO()
    Console(file=out, width=width, highlight=False).print(summary.to_rich(c))
    return out.getvalue()


def test_header_totals_are_the_dumps_own() -> None:
    """Instructions: every opcode's executions; calls: the ``Calls to`` lines (summarize_stats.py's total)."""
    raw = dump("3.13.5").raw
    instructions = sum(v for k, v in raw.items() if k.startswith("opcode[") and k.endswith("].execution_count"))
    calls = sum(v for k, v in raw.items() if k.startswith("Calls to "))
    inlined = raw["Calls to Python functions inlined"]
    allocated = raw["Object allocations"] + raw["Object allocations from freelist"]
    assert dict(header(collection("3.13.5", named=False))) == {
        "instructions": f"{instructions:,}",
        "calls": f"{calls:,} ({100 * inlined / calls:.1f}% inlined)",
        "objects allocated": f"{allocated:,} ({100 * raw['Object allocations from freelist'] / allocated:.1f}% from freelists)",
        "GC collections": "0",
    }
    assert instructions == 66_560 and calls == 4_402


def summarize_stats_hit_ratios(version: str) -> dict[str, str]:
    """``{family: "57.2%"}``: the hit row of each "specialization stats for X family" table that the
    revision's own summarize_stats.py printed for run1 (tests/data/dumps/README.md)."""
    text = gzip.decompress((DATA / version / "summarize-run1.md.gz").read_bytes()).decode()
    found: dict[str, str] = {}
    for section in text.split("specialization stats for ")[1:]:
        family = section.split(" ", 1)[0]
        hit = re.search(r"^\|\s+hit \|\s+\d+ \| ([\d.]+%) \|", section, re.M)
        found[family] = hit.group(1) if hit else "0.0%"
    return found


def test_hit_ratio_is_summarize_stats_for_every_311_family() -> None:
    """3.11's script counts deferred executions in the total (they ran as X_ADAPTIVE); ours agrees, family by family."""
    expected = summarize_stats_hit_ratios("3.11.2")
    ours = rows(collection("3.11.2", named=True))
    assert len(expected) == 12
    assert {family: f"{100 * (ours[family].hit or 0):.1f}%" for family in expected} == expected


def test_hit_miss_and_deferred_of_313_binary_op() -> None:
    """3.12+: hit and miss over hit + miss + the base instruction's executions (deferred are among those)."""
    raw = dump("3.13.5").raw
    hit, base = raw["opcode[BINARY_OP].specialization.hit"], raw["opcode[BINARY_OP].execution_count"]
    row = rows(collection("3.13.5", named=True))["BINARY_OP"]
    assert (row.hit, row.miss, row.deferred, row.deopt) == (hit / (hit + base), 0, 417, 0)
    assert "| `BINARY_OP` | 6,832 | 10.3% | 93.5% | 0.0% | 417 | 0 |" in summary.to_markdown(
        collection("3.13.5", named=True)
    )


def test_families_that_cannot_specialize_show_a_dash() -> None:
    c = collection("3.13.5", named=False)
    load_fast = rows(c)["LOAD_FAST"]
    assert not load_fast.specializes and load_fast.hit is None and load_fast.deferred is None
    assert "| `LOAD_FAST` | 10,410 | 15.6% | – | – | – | – |" in summary.to_markdown(c)
    assert re.search(r"^ LOAD_FAST +10,410 +15\.6% +– +– +– +– *$", rendered(c), re.M)
    assert "0 / 0" not in rendered(c)


def test_failure_kinds_are_named_with_the_build_and_numbered_without() -> None:
    named, bare = collection("3.13.5", named=True), collection("3.13.5", named=False)
    assert rows(named)["BINARY_OP"].failures == (("add_other", 7),)
    assert rows(bare)["BINARY_OP"].failures == (("kind_10", 7),)
    assert "| `BINARY_OP` | add_other 7 |" in summary.to_markdown(named)
    assert "| `BINARY_OP` | kind_10 7 |" in summary.to_markdown(bare)
    note = "failure kinds are numbers (kind_N): --rev REV"
    assert note not in summary.to_markdown(named) and note not in rendered(named)
    assert note in summary.to_markdown(bare) and note in rendered(bare)


def test_failure_kinds_of_311_most_frequent_first() -> None:
    assert rows(collection("3.11.2", named=True))["FOR_ITER"].failures[:3] == (
        ("range", 1501),
        ("list", 513),
        ("tuple", 362),
    )


def test_opcode_numbers_without_the_build_say_so_in_one_line() -> None:
    c = collection("3.11.2", named=False)
    md, text = summary.to_markdown(c), rendered(c)
    line = "opcodes are numbers, no families: --rev REV (the revision that made the dumps) names them"
    assert [line in md, line in text] == [True, True]
    assert "| Family |" not in md and "Family" not in text
    assert "instructions       98,262" in text


@pytest.mark.parametrize(("version", "named"), [("3.13.5", True), ("3.13.5", False), ("3.11.2", True)])
def test_terminal_and_markdown_have_the_same_columns(version: str, named: bool) -> None:
    c = collection(version, named=named)
    md, text = summary.to_markdown(c), rendered(c, width=200)
    for columns in (summary.COLUMNS, summary.FAILURE_COLUMNS):
        titles = [col.title for col in columns]
        assert "| " + " | ".join(titles) + " |" in md
        assert re.search(r"^ " + " +".join(map(re.escape, titles)) + " *$", text, re.M), text


@pytest.mark.parametrize(
    ("version", "named"), [("3.13.5", True), ("3.13.5", False), ("3.11.2", True), ("3.11.2", False)]
)
def test_output_fits_100_columns_with_nothing_cut(version: str, named: bool) -> None:
    c = collection(version, named=named)
    lines = rendered(c).splitlines()
    assert max(len(line) for line in lines) <= 100
    for row in families(c, summary.LIMIT)[0]:  # every family shown whole, on one line
        assert any(line.startswith(f" {row.family} ") for line in lines), row.family


def test_invoke_stats_without_rev_on_a_313_dump(tmp_path: Path) -> None:
    """As a user runs it, stdout a pipe: named families, hit %, deferred, kinds, the kinds line, ≤ 100 columns."""
    out = invoke_in(tmp_path, "stats", str(DATA / "3.13.5" / "run1"), DOCKER_HOST="unix:///nonexistent")
    assert out.returncode == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= 100
    assert re.search(r"^ BINARY_OP +6,832 +10\.3% +93\.5% +0\.0% +417 +0 *$", out.stdout, re.M), out.stdout
    assert re.search(r"^ BINARY_OP +kind_10 7 *$", out.stdout, re.M)
    assert "failure kinds are numbers (kind_N): --rev REV" in out.stdout
    assert out.stdout.startswith("3.13+-shaped dump (opcodes named by the dump), 2 files\n")
    assert out.stdout.count("2 files") == 1  # said once, on the first line
    header = out.stdout.splitlines()[1:6]  # the header and the table's title: nothing after the value
    assert header[0].startswith("instructions") and all(line == line.rstrip() for line in header), header


def test_invoke_stats_without_rev_on_a_311_dump_is_no_error(tmp_path: Path) -> None:
    """Opcode numbers without a build are what the dump is, not bad input: the header, one line, exit 0."""
    out = invoke_in(tmp_path, "stats", str(DATA / "3.11.2" / "run1"), DOCKER_HOST="unix:///nonexistent")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "opcodes are numbers, no families: --rev REV" in out.stdout and "instructions" in out.stdout


def test_the_paths_written_are_never_wrapped(tmp_path: Path) -> None:
    """The tables fit 100 columns; a path written to stays whole on its line, to be copied."""
    deep = tmp_path / ("d" * 90) / "collection.json"
    deep.parent.mkdir()
    out = invoke_in(tmp_path, "stats", str(DATA / "3.13.5" / "run1"), "--json", str(deep), DOCKER_HOST="unix:///x")
    assert out.returncode == 0, out.stderr
    assert f"JSON: {deep}" in out.stdout.splitlines()


def test_dumps_of_two_builds_mixed_in_one_directory_are_refused(tmp_path: Path) -> None:
    """A 3.11 dump (opcode numbers) beside a 3.13 one (opcode names): one line, exit 12, nothing written."""
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for version in ("3.11.2", "3.13.5"):
        first = sorted((DATA / version / "run1").glob("*.txt"))[0]
        shutil.copy(first, mixed / f"{version}-{first.name}")
    out = invoke_in(tmp_path, "stats", str(mixed), "--json", str(tmp_path / "c.json"), DOCKER_HOST="unix:///x")
    assert out.returncode == 12, out.stdout + out.stderr
    assert out.stderr.strip().splitlines() == [
        "error: the dumps mix opcode numbers (3.11/3.12: opcode[157]) and opcode names (3.13+: opcode[LOAD_ATTR]), "
        "so they come from different builds; summarize each build's dumps on its own"
    ]
    assert not (tmp_path / "c.json").exists()
