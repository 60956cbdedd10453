from __future__ import annotations

import dis
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pystats_harness.errors import ConfigError
from pystats_harness.stats.names import CAPTURE_SCRIPT, DEFINE_SOURCES, NameTables, source_defines

DATA = Path(__file__).resolve().parents[1] / "data" / "dumps"


def golden(version: str) -> NameTables:
    return NameTables.from_dict(json.loads((DATA / version / "names.json").read_text()))


def run_capture(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args, "-c", CAPTURE_SCRIPT], capture_output=True, text=True, cwd=cwd, check=True, timeout=60
    )


def test_capture_script_on_this_interpreter() -> None:
    out = run_capture("-I")
    doc = json.loads(out.stdout)
    assert doc["errors"] == [] and out.stderr == ""
    assert doc["opnames"][:256] == list(dis._all_opname)[:256]  # type: ignore[attr-defined]
    assert doc["python_version"] == "{}.{}.{}".format(*sys.version_info[:3])
    if sys.version_info < (3, 13):
        assert doc["fill_agrees"] is True and doc["opnames_source"] == "dis._all_opname"
    tables = NameTables.from_capture(out.stdout, {})
    assert tables.opname(dis.opmap["LOAD_ATTR"]) == "LOAD_ATTR"


def test_capture_script_survives_missing_attributes(tmp_path: Path) -> None:
    (tmp_path / "opcode.py").write_text("opname = ['CACHE', 'POP_TOP', '<2>', '<3>']\n")
    (tmp_path / "dis.py").write_text("")
    out = subprocess.run(
        [sys.executable, "-S", "-c", CAPTURE_SCRIPT],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["opnames"] == ["CACHE", "POP_TOP", "<2>", "<3>"] and doc["families"] is None
    with pytest.raises(ConfigError, match="no opcode table"):
        NameTables.from_capture({"opnames": None, "errors": ["x"]}, {})


# Values checked by hand against Include/opcode.h of the 3.11.2 release.
OPCODE_H_3_11_2 = {
    0: "CACHE",
    5: "BINARY_OP_ADD_INT",
    23: "CALL_PY_EXACT_ARGS",
    25: "BINARY_SUBSCR",
    40: "LOAD_ATTR_INSTANCE_VALUE",
    48: "LOAD_GLOBAL_BUILTIN",
    63: "LOAD_METHOD_WITH_VALUES",
    78: "PRECALL_NO_KW_LEN",
    93: "FOR_ITER",
    145: "LIST_APPEND",
    150: "RESUME_QUICK",
    157: "BUILD_STRING",
    161: "STORE_FAST__LOAD_FAST",
    166: "PRECALL",
    171: "CALL",
}


def test_311_numbers_are_named_exactly_as_in_opcode_h() -> None:
    tables = golden("3.11.2")
    assert {num: tables.opname(num) for num in OPCODE_H_3_11_2} == OPCODE_H_3_11_2
    assert tables.opname("23") == "CALL_PY_EXACT_ARGS" and tables.opname("LOAD_ATTR") == "LOAD_ATTR"
    assert tables.opname(254) == "<254>" and tables.opname(999) == "<999>"
    assert tables.extra["opnames_source"] == "dis._all_opname" and tables.extra["fill_agrees"] is True


def test_families() -> None:
    t311, t313 = golden("3.11.2"), golden("3.13.5")
    assert t311.family("LOAD_ATTR_INSTANCE_VALUE") == "LOAD_ATTR"
    assert t311.family("PRECALL_ADAPTIVE") == "PRECALL" and t311.family("LOAD_FAST__LOAD_FAST") == "LOAD_FAST"
    assert t313.family("BINARY_OP_ADD_INT") == "BINARY_OP" and t313.family("RESUME_CHECK") == "RESUME"
    assert t313.family("NOP") == "NOP"
    assert t313.extra["opnames_source"] == "opcode._specialized_opmap"


def test_generic_failure_kinds_follow_the_source() -> None:
    assert golden("3.11.2").generic_fail_max() == 6  # summarize_stats.py 3.11: kind < 7
    assert golden("3.13.5").generic_fail_max() == 8  # 3.12+: kind <= 8


def summarize_311_failure_kinds() -> dict[tuple[str, str], int]:
    """(family, text) -> count from the failure-kind tables of the 3.11 summarize_stats.py output."""
    out: dict[tuple[str, str], int] = {}
    family, attempts = "", False
    for line in gzip.decompress((DATA / "3.11.2" / "summarize-run1.md.gz").read_bytes()).decode().splitlines():
        if line.startswith("## "):
            family, attempts = "", line == "## Specialization stats"
        elif line.startswith("### ") and attempts:
            family = line[4:]
        elif family and line.startswith("| ") and not line.startswith(("| Success", "| Failure")):
            cells = [c.strip() for c in line.strip("| ").split("|")]
            if cells[1].isdigit() and cells[0] not in ("unquickened", "hit", "miss") and "." not in cells[0]:
                out[(family, cells[0])] = int(cells[1])
    return out


def test_311_failure_kind_names_match_summarize_stats() -> None:
    from pystats_harness.stats.collection import collect

    tables = golden("3.11.2")
    collection = collect(sorted((DATA / "3.11.2" / "run1").glob("*.txt")), tables, {})
    ours = {
        (name.split(".")[1], name.rsplit(".", 1)[1].replace("_", " ")): value
        for name, value in collection.counters.items()
        if name.startswith("opcode.") and ".failure_kinds." in name
    }
    theirs = summarize_311_failure_kinds()
    assert theirs and ours == theirs


def test_failure_kind_naming_rules() -> None:
    t311, t313 = golden("3.11.2"), golden("3.13.5")
    assert t311.failure_kind(0, "LOAD_ATTR") == "other"
    assert t311.failure_kind(12, "LOAD_ATTR") == "mutable_class"
    assert t311.failure_kind(13, "LOAD_METHOD") == "property"
    assert t311.failure_kind(13, "FOR_ITER") == "list"  # SPEC_FAIL_FOR_ITER_LIST
    assert t311.failure_kind(13, "PRECALL") == "pycfunction"  # PRECALL uses the CALL defines
    assert t311.failure_kind(29, "NOP") == "kind_29"
    assert t313.failure_kind(9, "LOAD_SUPER_ATTR") == "bad_class"
    assert t313.failure_kind("named", "X") == "named"


def test_source_defines_and_round_trip() -> None:
    files = {
        "Python/specialize.c": "#define SPEC_FAIL_OTHER 0\n#define SPEC_FAIL_NO_DICT 1\n"
        "  # define SPEC_FAIL_ATTR_METHOD 5 /* x */\n#define SPEC_FAIL_ATTR_X SOMETHING\n",
        "Include/cpython/pystats.h": "#define EVAL_CALL_TOTAL 0\n#define EVAL_CALL_VECTOR 1\n#define EVAL_CALL_KINDS 2\n",
    }
    defines = source_defines(files)
    assert defines == {
        "spec_fail": [["OTHER", 0], ["NO_DICT", 1], ["ATTR_METHOD", 5]],
        "eval_call": [["TOTAL", 0], ["VECTOR", 1], ["KINDS", 2]],
    }
    assert set(files) <= set(DEFINE_SOURCES)
    tables = NameTables.from_capture(
        {
            "opnames": ["CACHE", "LOAD_ATTR", "LOAD_ATTR_SLOT"],
            "python_version": "3.99.0",
            "families": {"LOAD_ATTR": ["LOAD_ATTR_SLOT"]},
        },
        defines,
    )
    assert tables.failure_kind(5, "LOAD_ATTR_SLOT") == "method" and tables.generic_fail_max() == 1
    assert tables.eval_call_kind(1) == "vector" and tables.eval_call_kind("2") == "kind_2"
    again = NameTables.from_dict(json.loads(json.dumps(tables.to_dict())))
    assert again == tables and again.family("LOAD_ATTR_SLOT") == "LOAD_ATTR"
    with pytest.raises(ConfigError, match=r"names.json"):
        NameTables.from_dict({"schema": "other"})
