"""The summarize_stats.py JSON export: named keys, the build's tables, __nfiles__ (no engine needed)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from pystats_harness.stats.collection import collect
from pystats_harness.stats.dumps import parse_files, parse_text
from pystats_harness.stats.names import NAMES_SCHEMA, NameTables
from pystats_harness.stats.summarize_json import (
    METADATA_KEY,
    SCHEMA,
    failure_kind_offset,
    script_prefix,
    summarize_json,
    write_summarize_json,
)
from tests.support.invoke_runner import invoke_in

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "dumps"
ORIGIN = {"revision": "vX", "sha": "0123abcd", "python_version": None}


def tables(version: str) -> NameTables:
    return NameTables.from_dict(json.loads((DATA / version / "names.json").read_text()))


def export(version: str) -> dict:
    paths = sorted((DATA / version / "run1").glob("*.txt"))
    return summarize_json(parse_files(paths), tables(version), {**ORIGIN, "revision": f"v{version}"})


def script_label(defines: dict[str, list[str]], kind: int, opcode: str) -> str:
    """How summarize_stats.py 3.12/3.13 labels failure kind ``kind`` of ``opcode`` from a JSON's _defines."""
    if kind <= 8:
        return defines[str(kind)][0].replace("_", " ").lower()
    prefix = script_prefix(opcode)
    for name in defines.get(str(kind), []):
        if name.startswith(prefix):
            return name[len(prefix) + 1 :].replace("_", " ").lower()
    return f"kind {kind}"


def test_313_export_is_the_revisions_own_json_output() -> None:
    """3.13.5's `summarize_stats.py run1 --json-output F` of the same files, plus only the metadata key."""
    ours = export("3.13.5")
    theirs = json.loads(gzip.decompress((DATA / "3.13.5" / "summarize-run1.json.gz").read_bytes()))
    meta = ours.pop(METADATA_KEY)
    assert ours == theirs
    assert meta["schema"] == SCHEMA and meta["revision"] == "v3.13.5" and meta["sha"] == "0123abcd"
    assert meta["python_version"] == "3.13.5" and meta["opcode_keys"] == "names"
    assert meta["failure_kind_offset"] == 0 and meta["unnamed_opcodes"] == []


def test_311_numeric_keys_are_named_with_the_builds_table() -> None:
    doc = export("3.11.2")
    names = tables("3.11.2")
    counters = collect(sorted((DATA / "3.11.2" / "run1").glob("*.txt")), names, {}).counters
    opcode_keys = [k for k in doc if k.startswith("opcode[")]
    assert len(opcode_keys) > 1000
    assert not [k for k in opcode_keys if k[7].isdigit() or k.partition("pair_count[")[2][:1].isdigit()]
    for key in opcode_keys:
        name, _, rest = key[7:].partition("].")
        if rest in ("execution_count", "specialization.hit", "specialization.miss", "specialization.deferred"):
            assert doc[key] == counters[f"opcode.{name}.{rest}"], key
        elif rest.startswith("pair_count["):
            assert doc[key] == counters[f"pair.{name}.{rest[11:-1]}"], key
    assert doc["opcode[LOAD_ATTR].specializable"] == 1
    assert (
        doc["opcode[CALL_PY_EXACT_ARGS].execution_count"] == counters["opcode.CALL_PY_EXACT_ARGS.execution_count"] > 0
    )
    assert doc["__nfiles__"] == 1
    meta = doc[METADATA_KEY]
    assert meta["opcode_keys"] == "numbers, named with the build's names.json" and meta["python_version"] == "3.11.2"


def test_311_failure_kinds_are_labelled_by_the_313_script_as_by_the_harness() -> None:
    """3.11's generic kinds are 0-6 (the 3.13 script assumes 0-8), PRECALL's defines are CALL_*, FOR_ITER's
    are FOR_ITER_* (the script looks for ITER_*): every failure kind must still get the harness's label."""
    doc = export("3.11.2")
    names = tables("3.11.2")
    counters = collect(sorted((DATA / "3.11.2" / "run1").glob("*.txt")), names, {}).counters
    assert failure_kind_offset(names) == 2 and doc[METADATA_KEY]["failure_kind_offset"] == 2
    defines = doc["_defines"]
    assert "7" not in defines and "8" not in defines and defines["6"] == ["WRONG_NUMBER_ARGUMENTS"]
    assert "ATTR_OVERRIDING_DESCRIPTOR" in defines["10"]  # 8 in 3.11.2's specialize.c
    failure_keys = [k for k in doc if ".failure_kinds[" in k]
    families = {k[7:].partition("]")[0] for k in failure_keys}
    assert {"PRECALL", "FOR_ITER", "LOAD_ATTR"} <= families
    for key in failure_keys:
        opcode = key[7:].partition("]")[0]
        label = script_label(defines, int(key[key.rindex("[") + 1 : -1]), opcode)
        assert doc[key] == counters[f"opcode.{opcode}.specialization.failure_kinds.{label.replace(' ', '_')}"], key
    assert sum(doc[k] for k in failure_keys) == sum(
        v for k, v in counters.items() if k.startswith("opcode.") and ".failure_kinds." in k
    )


def test_defines_and_specialized_instructions_come_from_the_build() -> None:
    names = tables("3.11.2")
    doc = export("3.11.2")
    assert doc["_stats_defines"] == {}  # 3.11 has no EVAL_CALL kinds
    spec = doc["_specialized_instructions"]
    assert "LOAD_ATTR_INSTANCE_VALUE" in spec and "EXTENDED_ARG_QUICK" in spec
    assert not [n for n in spec if "__" in n or n.endswith("_ADAPTIVE") or n in names.families]
    head = export("3.13.5")
    assert head["_stats_defines"]["1"] == ["VECTOR"] and head["_stats_defines"]["10"] == ["KINDS"]
    assert head["_defines"]["0"] == ["OTHER"] and "SUPER_SHADOWED" in head["_defines"]["10"]


#: Generic failure kinds 0-8, as 3.12+ defines them (the script's assumption: nothing is moved).
GENERIC: list[list[object]] = [[f"GENERIC_{i}", i] for i in range(9)]


def small_names(spec_fail: list[list[object]] | None = None) -> NameTables:
    return NameTables.from_dict(
        {
            "schema": NAMES_SCHEMA,
            "python_version": "3.12.0",
            "opnames": ["CACHE", "POP_TOP", "LOAD_ATTR", "LOAD_ATTR_SLOT", "<4>"],
            "families": {"LOAD_ATTR": ["LOAD_ATTR_SLOT"]},
            "spec_fail": spec_fail or [*GENERIC, ["ATTR_SLOT", 9]],
            "eval_call": [["TOTAL", 0], ["VECTOR", 1]],
        }
    )


def test_small_numeric_dump_maps_exactly() -> None:
    dump = parse_text(
        "opcode[2].specializable : 1\n"
        "    opcode[2].specialization.hit : 7\n"
        "    opcode[2].specialization.failure_kinds[9] : 2\n"
        "    opcode[2].execution_count : 5\n"
        "    opcode[2].pair_count[3] : 4\n"
        "    opcode[3].execution_count : 7\n"
        "    opcode[4].execution_count : 1\n"
        "Calls via PyEval_EvalFrame[1] : 3\n"
        "Object allocations : 11\n"
        "uops[LOAD_FAST].execution_count : 2\n",
        "a.txt",
    )
    doc = summarize_json(dump, small_names(), ORIGIN)
    assert doc == {
        "opcode[LOAD_ATTR].specializable": 1,
        "opcode[LOAD_ATTR].specialization.hit": 7,
        "opcode[LOAD_ATTR].specialization.failure_kinds[9]": 2,
        "opcode[LOAD_ATTR].execution_count": 5,
        "opcode[LOAD_ATTR].pair_count[LOAD_ATTR_SLOT]": 4,
        "opcode[LOAD_ATTR_SLOT].execution_count": 7,
        "opcode[<4>].execution_count": 1,
        "Calls via PyEval_EvalFrame[1]": 3,
        "Object allocations": 11,
        "uops[_LOAD_FAST].execution_count": 2,
        "__nfiles__": 1,
        "_specialized_instructions": ["LOAD_ATTR_SLOT"],
        "_stats_defines": {"0": ["TOTAL"], "1": ["VECTOR"]},
        "_defines": {**{str(i): [f"GENERIC_{i}"] for i in range(9)}, "9": ["ATTR_SLOT"]},
        METADATA_KEY: {
            "schema": SCHEMA,
            "revision": "vX",
            "sha": "0123abcd",
            "python_version": "3.12.0",
            "opcode_keys": "numbers, named with the build's names.json",
            "unnamed_opcodes": ["4"],
            "failure_kind_offset": 0,
            "uops_underscored": ["LOAD_FAST"],
            "tier2_missing_for_313_script": [],
            "warnings": 0,
            "negative_keys": {},
        },
    }
    json.dumps(doc, allow_nan=False)


def test_a_failure_kind_beyond_a_313_scripts_list_is_exported_the_script_that_reads_it_decides() -> None:
    """3.14 has 60 failure kinds (its script sizes its list to fit); 3.12's and 3.13's keep 40: the
    export keeps every kind, and stats/summarize_for.py leaves out what a given script cannot hold."""
    names = small_names([["OTHER", 0], ["NO_DICT", 1], ["ATTR_HUGE", 39]])  # generic 0-1: moved by 7
    dump = parse_text("opcode[2].specialization.failure_kinds[39] : 1\n")
    doc = summarize_json(dump, names, ORIGIN)
    assert [k for k in doc if ".failure_kinds[" in k] == ["opcode[LOAD_ATTR].specialization.failure_kinds[46]"]


def test_writer_writes_what_it_returns(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    paths = sorted((DATA / "3.13.5" / "run1").glob("*.txt"))
    doc = write_summarize_json(paths, tables("3.13.5"), ORIGIN, out)
    assert json.loads(out.read_text()) == doc and doc["__nfiles__"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_task_without_rev_refuses_with_one_line(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    run = invoke_in(tmp_path, "stats", str(DATA / "3.13.5" / "run1"), "--summarize-json", str(out))
    assert run.returncode == 2, run.stderr
    assert "--summarize-json needs --rev" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_wrapped_counters_are_exported_signed_and_listed() -> None:
    dump = parse_text("opcode[RESUME].specialization.deferred : 18446744073709551433\n")
    doc = summarize_json(dump, tables("3.13.5"), ORIGIN)
    assert doc["opcode[RESUME].specialization.deferred"] == -183
    assert doc[METADATA_KEY]["negative_keys"] == {"opcode[RESUME].specialization.deferred": 1}
