from __future__ import annotations

import difflib
import gzip
import json
import os
import re
from pathlib import Path

import pytest

from pystats_harness.errors import ConfigError, StatsParseError
from pystats_harness.stats.collection import (
    SCHEMA,
    Collection,
    aggregate,
    collect,
    from_dump,
    load,
    per_loop,
    save,
)
from pystats_harness.stats.dumps import parse_text
from pystats_harness.stats.names import NameTables

DATA = Path(__file__).resolve().parents[1] / "data" / "dumps"
REGEN = os.environ.get("PYSTATS_REGEN_GOLDEN") == "1"


def tables(version: str) -> NameTables:
    return NameTables.from_dict(json.loads((DATA / version / "names.json").read_text()))


def golden_collection(version: str) -> Collection:
    paths = sorted((DATA / version / "run1").glob("*.txt"))
    files = [{"path": f"run1/{p.name}", "origin": "dump"} for p in paths]
    return collect(paths, tables(version), {"revision": f"v{version}", "files": files})


@pytest.mark.parametrize(
    ("version", "expected_name"), [("3.11.2", "expected-run1.json.gz"), ("3.13.5", "expected-run1.json")]
)
def test_golden_collections(version: str, expected_name: str) -> None:
    """The collection of the committed dumps equals the reviewed golden file. PYSTATS_REGEN_GOLDEN=1
    (after a deliberate schema change only) rewrites the file and fails, showing the diff for review."""
    doc = golden_collection(version).to_dict()
    path = DATA / version / expected_name
    raw = path.read_bytes()
    expected = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
    if REGEN and doc != expected:
        text = json.dumps(doc, indent=1) + "\n"
        path.write_bytes(gzip.compress(text.encode(), 9, mtime=0) if path.suffix == ".gz" else text.encode())
        before = (json.dumps(expected, indent=1) + "\n").splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(before, text.splitlines(keepends=True), str(path), "regenerated"))
        pytest.fail(f"{path} rewritten; review this diff before committing it:\n{diff[:20000]}")
    assert doc == expected


def test_golden_313_agrees_with_cpythons_own_script() -> None:
    """The golden file checked from outside: its opcode and pair counters are what 3.13.5's own
    summarize_stats.py (summarize-run1.json.gz, run by that build) added up from the same dumps."""
    golden = json.loads((DATA / "3.13.5" / "expected-run1.json").read_text())["counters"]
    theirs = json.loads(gzip.decompress((DATA / "3.13.5" / "summarize-run1.json.gz").read_bytes()))
    checked = 0
    for key, value in theirs.items():
        if m := re.fullmatch(r"opcode\[(\w+)\]\.execution_count", key):
            assert golden.get(f"opcode.{m[1]}.execution_count", 0) == value, key
            checked += 1
        elif m := re.fullmatch(r"opcode\[(\w+)\]\.pair_count\[(\w+)\]", key):
            assert golden.get(f"pair.{m[1]}.{m[2]}", 0) == value, key
            checked += 1
    assert checked > 100


def test_311_names_and_family_totals() -> None:
    c = golden_collection("3.11.2").counters
    assert c["opcode.CALL_PY_EXACT_ARGS.execution_count"] > 0
    family = sum(v for k, v in c.items() if k.startswith("opcode.LOAD_ATTR") and k.endswith(".execution_count"))
    assert c["family.LOAD_ATTR.execution_count"] == family > c["opcode.LOAD_ATTR.execution_count"]
    assert c["family.LOAD_ATTR.specialization.hit"] == c["opcode.LOAD_ATTR.specialization.hit"]
    assert c["family.LOAD_ATTR.specialization.miss"] == c["opcode.LOAD_ATTR.specialization.miss"]
    assert not any(part.isdigit() for k in c for part in k.split(".")[1:2] if k.startswith(("opcode.", "pair.")))


def test_every_kind_gets_a_stable_dotted_name() -> None:
    t = tables("3.13.5")
    text = (
        "\n".join(
            [
                "    opcode[LOAD_ATTR_SLOT].execution_count : 3",
                "    opcode[LOAD_ATTR].execution_count : 2",
                "    opcode[LOAD_ATTR].specialization.hit : 5",
                "    opcode[LOAD_ATTR_SLOT].specialization.miss : 1",
                "    opcode[LOAD_ATTR].specialization.miss : 1",
                "    opcode[LOAD_ATTR].specialization.failure_kinds[0] : 4",
                "    opcode[LOAD_ATTR].specialization.failure_kinds[39] : 4",
                "opcode[LOAD_ATTR].specializable : 1",
                "opcode[LOAD_FAST].pair_count[LOAD_ATTR] : 7",
                "Calls to PyEval_EvalDefault: 9",
                "Calls via PyEval_EvalFrame[1] : 2",
                "Object method cache hits: 3",
                "GC[1] object visits: 4",
                "Rare event (builtin_dict): 1",
                "Trace length[4]: 2",
                "Optimization attempts: 1",
                "uops[_LOAD_FAST].execution_count : 8",
                "uop[_A].pair_count[_B] : 2",
                "QSBR polls (qsbr_polls): 6",
                "Brand new: 1",
            ]
        )
        + "\n"
    )
    c = from_dump(parse_text(text), t, {})
    assert c.counters == {
        "opcode.LOAD_ATTR_SLOT.execution_count": 3,
        "opcode.LOAD_ATTR.execution_count": 2,
        "opcode.LOAD_ATTR.specialization.hit": 5,
        "opcode.LOAD_ATTR_SLOT.specialization.miss": 1,
        "opcode.LOAD_ATTR.specialization.miss": 1,
        "opcode.LOAD_ATTR.specialization.failure_kinds.other": 4,
        "opcode.LOAD_ATTR.specialization.failure_kinds.kind_39": 4,
        "pair.LOAD_FAST.LOAD_ATTR": 7,
        "calls.to_pyeval_evaldefault": 9,
        "calls.via_pyeval_evalframe.vector": 2,
        "objects.method_cache_hits": 3,
        "gc.1.object_visits": 4,
        "rare_events.builtin_dict": 1,
        "optimizer.histogram.trace_length.4": 2,
        "optimizer.attempts": 1,
        "uops._LOAD_FAST.execution_count": 8,
        "uop_pair._A._B": 2,
        "ft.qsbr_polls": 6,
        "other.Brand new": 1,
        "family.LOAD_ATTR.execution_count": 5,
        "family.LOAD_ATTR.specialization.hit": 5,
        "family.LOAD_ATTR.specialization.miss": 1,
        "family.LOAD_ATTR.specialization.failure_kinds.other": 4,
        "family.LOAD_ATTR.specialization.failure_kinds.kind_39": 4,
    }
    assert c.unknown == ("Brand new",) and c.metadata["specializable"] == ["LOAD_ATTR"]
    assert c.metadata["naming"] == "names.json" and c.metadata["python_version"] == "3.13.5"


def test_numeric_dump_without_names_is_marked() -> None:
    c = from_dump(parse_text("    opcode[93].execution_count : 3\n"), None, {})
    assert c.counters == {"opcode.93.execution_count": 3} and c.metadata["naming"] == "numeric-unnamed"
    named = from_dump(parse_text("    opcode[FOR_ITER].execution_count : 3\n"), None, {})
    assert named.metadata["naming"] == "dump-names" and named.counters["family.FOR_ITER.execution_count"] == 3


def test_lenient_collect_records_warnings(tmp_path: Path) -> None:
    dump = tmp_path / "d.txt"
    dump.write_text("a : 1\nbroken\n")
    with pytest.raises(StatsParseError, match=r"d.txt:2"):
        collect([dump], None, {})
    c = collect([dump], None, {"sha": "abc"}, lenient=True)
    assert c.counters == {"other.a": 1} and c.metadata["warnings_total"] == 1
    assert c.metadata["files"] == [{"path": str(dump), "origin": "dump"}] and c.metadata["sha"] == "abc"


def test_aggregate_and_per_loop() -> None:
    a = Collection(
        {"sha": "s", "nfiles": 1, "loops": 10, "files": [{"path": "a", "origin": "dump"}]}, {"x": 10, "y": 1}
    )
    b = Collection(
        {"sha": "s", "nfiles": 2, "loops": 30, "files": [{"path": "b", "origin": "dump"}]}, {"x": 30}, ("u",)
    )
    total = aggregate([a, b])
    assert total.counters == {"x": 40, "y": 1} and total.unknown == ("u",)
    assert total.metadata["nfiles"] == 3 and total.metadata["loops"] == 40 and len(total.metadata["files"]) == 2
    normal = per_loop(total)
    assert normal.counters == {"x": 1.0, "y": 0.025} and normal.metadata["per_loop"] is True
    assert per_loop(total, loops=4).counters["x"] == 10.0
    with pytest.raises(ConfigError, match="aggregate before"):
        aggregate([normal])
    with pytest.raises(ConfigError, match="different builds"):
        aggregate([a, Collection({"sha": "t"}, {})])
    with pytest.raises(ConfigError, match="positive number of loops"):
        per_loop(Collection({}, {"x": 1}))
    with pytest.raises(ConfigError):
        aggregate([])


def test_counters_that_wrapped_are_negative_and_named_in_the_metadata(tmp_path: Path) -> None:
    dumps = []
    for i, deferred in enumerate((2**64 - 183, 2**64 - 1, 5)):  # two workers wrapped, one did not
        dumps.append(tmp_path / f"{i}.txt")
        dumps[-1].write_text(
            f"opcode[RESUME].specialization.deferred : {deferred}\nopcode[RESUME].execution_count : {2**60 + 1}\n"
        )
    c = collect(dumps, tables("3.13.5"), {"sha": "s"})
    assert c.counters["opcode.RESUME.specialization.deferred"] == -183 - 1 + 5
    assert c.counters["family.RESUME.specialization.deferred"] == -179
    assert c.counters["opcode.RESUME.execution_count"] == 3 * 2**60 + 3  # beyond 2**53: exact
    assert c.metadata["negative_counters"] == {"opcode.RESUME.specialization.deferred": 2}
    doc = json.loads(json.dumps(c.to_dict()))
    assert doc["counters"]["opcode.RESUME.execution_count"] == 3 * 2**60 + 3
    total = aggregate([c, collect(dumps[:1], tables("3.13.5"), {"sha": "s"})])
    assert total.metadata["negative_counters"] == {"opcode.RESUME.specialization.deferred": 3}
    assert "negative_counters" not in collect(dumps[2:], tables("3.13.5"), {}).metadata


def test_per_loop_keeps_exact_quotients_as_ints() -> None:
    big = 3 * 2**60 + 3
    got = per_loop(Collection({"loops": 3}, {"x": big, "y": 1})).counters
    assert got["x"] == 2**60 + 1 and isinstance(got["x"], int)  # big / 3 as a float is 2**60 exactly
    assert got["y"] == pytest.approx(1 / 3) and isinstance(got["y"], float)


def test_save_load_round_trip_and_bad_files(tmp_path: Path) -> None:
    c = golden_collection("3.13.5")
    path = tmp_path / "c.json"
    save(c, path)
    assert load(path) == c and json.loads(path.read_text())["schema"] == SCHEMA
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(StatsParseError, match="invalid JSON"):
        load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"schema": "x"}')
    with pytest.raises(StatsParseError, match="not a stats collection"):
        load(tmp_path / "other.json")
    (tmp_path / "strings.json").write_text(json.dumps({"schema": SCHEMA, "counters": {"a": "1"}}))
    with pytest.raises(StatsParseError, match="map names to numbers"):
        load(tmp_path / "strings.json")
    with pytest.raises(StatsParseError, match="cannot read"):
        load(tmp_path / "missing.json")


def test_summary_shows_counts_beyond_2_to_the_53_digit_for_digit() -> None:
    from pystats_harness.stats import summary

    c = Collection({}, {"family.NOP.execution_count": 2**60 + 1, "family.NOP.specialization.hit": 3})
    assert "| `NOP` | 1,152,921,504,606,846,977 | – | 100.0% | 0.0% | 0 | 0 |" in summary.to_markdown(c)
