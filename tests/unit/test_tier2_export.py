"""Tier-2 dumps in a collection and in the summarize_stats.py export: real dumps of main (tier 2 on with
-X uops) against that revision's own --json-output, and 3.13.5's own script rendering the "Optimization
(Tier 2)" section of an export (a 3.13.5 dump synthesized from its format strings, and a real one)."""

from __future__ import annotations

import gzip
import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from pystats_harness.stats.collection import collect
from pystats_harness.stats.dumps import parse_files
from pystats_harness.stats.names import NameTables
from pystats_harness.stats.summarize_json import METADATA_KEY, summarize_json
from tests.support.tier2_dumps import Counts, git_show, render, source_formats

DATA = Path(__file__).resolve().parents[1] / "data" / "dumps"
NEW, OLD = "main-c97d3af239-uops", "main-84b7e9e3fa-uops"  # 2024-04-02 and 2023-10-14


def tables(name: str) -> NameTables:
    return NameTables.from_dict(json.loads((DATA / name / "names.json").read_text()))


def dumps(name: str) -> list[Path]:
    return sorted((DATA / name / "run1").glob("*.txt"))


def export(name: str, paths: list[Path] | None = None) -> dict[str, Any]:
    return summarize_json(parse_files(paths or dumps(name)), tables(name), {"revision": name})


def own_json(name: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((DATA / name / "summarize-run1.json.gz").read_bytes()))


def test_real_dump_of_main_is_named_exactly() -> None:
    c = collect(dumps(NEW), tables(NEW), {}).counters
    assert c["optimizer.attempts"] == 289 and c["optimizer.traces_created"] == 11
    assert c["optimizer.trace_too_short"] == 278 and c["optimizer.executors_invalidated"] == 6
    assert c["optimizer.histogram.trace_run_length.256"] == 8547 and c["optimizer.optimizer_successes"] == 11
    assert c["uops._SIDE_EXIT.specialization.miss"] == 26050 and c["uops._SET_IP.execution_count"] == 257341
    assert c["optimizer.unsupported_opcode.CALL_ALLOC_AND_ENTER_INIT"] == 7
    uops = {k: v for k, v in c.items() if k.startswith("uops.") and k.endswith(".execution_count")}
    assert sum(uops.values()) == c["optimizer.uops_executed"] == 1709435  # every uop executed, counted once
    assert collect(dumps(NEW), tables(NEW), {}).unknown == ()


def test_real_dump_of_main_exports_as_its_own_script_writes_it() -> None:
    """c97d3af239's `summarize_stats.py run1 --json-output F` (its own interpreter) of the same file."""
    ours = export(NEW)
    meta = ours.pop(METADATA_KEY)
    assert ours == own_json(NEW)
    assert meta["uops_underscored"] == [] and meta["tier2_missing_for_313_script"] == []


def test_early_dump_uop_names_get_their_underscore() -> None:
    """84b7e9e3fa printed uops below id 256 by their tier-1 names; its own script kept them so, 3.13's
    adds the underscore (reading such dumps), and so do the export and the collection."""
    ours, theirs = export(OLD), own_json(OLD)
    meta = ours.pop(METADATA_KEY)
    assert meta["uops_underscored"] == ["LOAD_FAST", "POP_TOP", "STORE_FAST"]
    renamed = {("uops[_" + k[5:] if k.startswith("uops[") and k[5] != "_" else k): v for k, v in theirs.items()}
    assert sorted(ours.pop("_specialized_instructions")) == sorted(renamed.pop("_specialized_instructions"))
    assert ours == renamed and ours["uops[_LOAD_FAST].execution_count"] == 79966
    assert meta["tier2_missing_for_313_script"] == [  # 84b7e9e3fa is of generation 9eb2489266
        "Optimization low confidence",
        "Executors invalidated",
        "Optimization optimizer attempts",
        "Optimization optimizer successes",
        "Optimization optimizer failure no memory",
        "Optimizer remove globals builtins changed",
        "Optimizer remove globals incorrect keys",
    ]
    c = collect(dumps(OLD), tables(OLD), {}).counters
    assert c["uops._LOAD_FAST.execution_count"] == 79966 and "uops.LOAD_FAST.execution_count" not in c
    uops = {k: v for k, v in c.items() if k.startswith("uops.") and k.endswith(".execution_count")}
    assert sum(uops.values()) == c["optimizer.uops_executed"] == 559769


# --- 3.13.5's own summarize_stats.py (from the mirror, run by this python3: on JSON input it is pure Python)


def script_313(tmp_path: Path) -> Path:
    script = tmp_path / "Tools" / "scripts" / "summarize_stats.py"  # it reads Path(__file__).parents[2]
    script.parent.mkdir(parents=True)
    script.write_text(git_show("v3.13.5", "Tools/scripts/summarize_stats.py"))
    return script


def render_313(tmp_path: Path, doc: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "export.json").write_text(json.dumps(doc))
    args = [sys.executable, str(script_313(tmp_path)), str(tmp_path / "export.json")]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def tier2_tables(markdown: str) -> dict[str, dict[str, int]]:
    """The "Optimization (Tier 2) stats" section's tables: {subsection ("" first): {first cell: count}}."""
    section = markdown.split("## Optimization (Tier 2) stats", 1)[1].split("\n## ", 1)[0]
    found: dict[str, dict[str, int]] = {}
    h3 = ""
    for block in re.split(r"(?m)^(### .*)$", section):
        if block.startswith("### "):
            h3 = block[4:].strip()
            continue
        for row in re.findall(r"<tr>(.*?)</tr>", block, re.S):
            cells = [
                re.sub(r"<details>.*?</details>", "", c, flags=re.S)
                for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            ]
            if len(cells) >= 2:
                found.setdefault(h3, {})[html.unescape(cells[0]).strip()] = int(cells[1].replace(",", ""))
    return found


SYNTH = Counts(
    scalars={
        "Optimization attempts": 1000,
        "Optimization traces created": 120,
        "Optimization traces executed": 45000,
        "Optimization uops executed": 900009,
        "Optimization trace stack overflow": 3,
        "Optimization trace stack underflow": 4,
        "Optimization trace too long": 5,
        "Optimization trace too short": 800,
        "Optimization inner loop": 6,
        "Optimization recursive call": 7,
        "Optimization low confidence": 8,
        "Executors invalidated": 9,
        "Optimization optimizer attempts": 120,
        "Optimization optimizer successes": 118,
        "Optimization optimizer failure no memory": 2,
        "Optimizer remove globals builtins changed": 10,
        "Optimizer remove globals incorrect keys": 11,
    },
    histograms={
        "Trace length": {8: 20, 16: 90, 64: 10},
        "Trace run length": {1: 5, 256: 44995},
        "Optimized trace length": {4: 1, 16: 119},
    },
    uops={
        "_SET_IP": (400000, 0),
        "_LOAD_FAST": (300000, 0),
        "_GUARD_TYPE_VERSION": (199999, 1234),
        "_EXIT_TRACE": (10, 0),
    },
    unsupported={"SEND": 31, "CALL_KW": 12},
    pairs={("_SET_IP", "_LOAD_FAST"): 250000, ("_LOAD_FAST", "_GUARD_TYPE_VERSION"): 150000},
    errors={"_BINARY_OP": 2},
)


def synthesized_313_run(tmp_path: Path) -> list[Path]:
    """3.13.5's golden run, as a tier-2 build prints it: the section between GC and rare events in each
    dump (the format strings of 3.13.5's own Python/specialize.c), SYNTH's counts in the first, zeros
    (scalars and histograms only) in the second."""
    out = []
    tmp_path.mkdir()
    formats = source_formats("v3.13.5")  # its own Python/specialize.c, not the harness's catalogue
    for i, path in enumerate(sorted((DATA / "3.13.5" / "run1").glob("*.txt"))):
        text = path.read_text()
        at = text.index("Rare event (set_class)")
        section = render(formats, SYNTH if i == 0 else Counts())
        out.append(tmp_path / path.name)
        out[-1].write_text(text[:at] + section + text[at:])
    return out


def test_synthesized_313_dump_is_named_and_exported(tmp_path: Path) -> None:
    paths = synthesized_313_run(tmp_path / "run1")
    c = collect(paths, tables("3.13.5"), {})
    assert c.unknown == ()
    assert (
        c.counters["optimizer.uops_executed"] == 900009 and c.counters["optimizer.remove_globals_incorrect_keys"] == 11
    )
    assert (
        c.counters["uop_pair._SET_IP._LOAD_FAST"] == 250000 and c.counters["optimizer.error_in_opcode._BINARY_OP"] == 2
    )
    assert c.counters["optimizer.histogram.trace_run_length.256"] == 44995
    doc = summarize_json(parse_files(paths), tables("3.13.5"), {})
    assert doc["Optimization attempts"] == 1000 and doc["Trace length[16]"] == 90 and doc["Trace length[32]"] == 0
    assert doc["uops[_GUARD_TYPE_VERSION].specialization.miss"] == 1234
    assert doc["uop[_LOAD_FAST].pair_count[_GUARD_TYPE_VERSION]"] == 150000
    assert doc["unsupported_opcode[SEND].count"] == 31 and doc["error_in_opcode[_BINARY_OP].count"] == 2
    assert doc[METADATA_KEY]["tier2_missing_for_313_script"] == [] and doc["__nfiles__"] == 2


def test_313_script_renders_the_tier2_section_of_a_synthesized_export(tmp_path: Path) -> None:
    doc = summarize_json(parse_files(synthesized_313_run(tmp_path / "run1")), tables("3.13.5"), {})
    run = render_313(tmp_path, doc)
    assert run.returncode == 0, run.stderr
    t = tier2_tables(run.stdout)
    assert t[""] == {
        "Optimization attempts": 1000,
        "Traces created": 120,
        "Trace stack overflow": 3,
        "Trace stack underflow": 4,
        "Trace too long": 5,
        "Trace too short": 800,
        "Inner loop found": 6,
        "Recursive call": 7,
        "Low confidence": 8,
        "Executors invalidated": 9,
        "Traces executed": 45000,
        "Uops executed": 900009,
        "Optimizer attempts": 120,
        "Optimizer successes": 118,
        "Optimizer no memory": 2,
        "Remove globals builtins changed": 10,
        "Remove globals incorrect keys": 11,
    }
    assert t["Trace length histogram"] == {
        "<= 1": 0,
        "<= 2": 0,
        "<= 4": 0,
        "<= 8": 20,
        "<= 16": 90,
        "<= 32": 0,
        "<= 64": 10,
    }
    assert t["Trace run length histogram"] == {"<= 1": 5, **{f"<= {1 << i}": 0 for i in range(1, 8)}, "<= 256": 44995}
    assert t["Optimized trace length histogram"] == {"<= 1": 0, "<= 2": 0, "<= 4": 1, "<= 8": 0, "<= 16": 119}
    assert t["Uop execution stats"] == {
        "_SET_IP": 400000,
        "_LOAD_FAST": 300000,
        "_GUARD_TYPE_VERSION": 199999,
        "_EXIT_TRACE": 10,
    }
    assert t["Pair counts"] == {"_SET_IP _LOAD_FAST": 250000, "_LOAD_FAST _GUARD_TYPE_VERSION": 150000}
    assert t["Unsupported opcodes"] == {"SEND": 31, "CALL_KW": 12}
    assert t["Optimizer errored out with opcode"] == {"_BINARY_OP": 2}
    assert "Miss ratio" in run.stdout and "0.6%" in run.stdout  # _GUARD_TYPE_VERSION: 1,234 of 199,999


def test_313_script_renders_a_real_export_of_main(tmp_path: Path) -> None:
    run = render_313(tmp_path, export(NEW))
    assert run.returncode == 0, run.stderr
    t = tier2_tables(run.stdout)
    assert t[""]["Optimization attempts"] == 289 and t[""]["Uops executed"] == 1709435
    assert t["Uop execution stats"]["_SET_IP"] == 257341 and t["Unsupported opcodes"]["CALL"] == 278
    assert t["Trace run length histogram"]["<= 256"] == 8547


def test_313_script_stops_on_an_export_of_a_dump_before_50369e6c34(tmp_path: Path) -> None:
    """Nothing is invented for the keys such a dump never printed; the export names them instead."""
    doc = export(OLD)
    run = render_313(tmp_path, doc)
    assert run.returncode != 0 and "KeyError: 'Optimization low confidence'" in run.stderr
    assert "Optimization low confidence" in doc[METADATA_KEY]["tier2_missing_for_313_script"]
