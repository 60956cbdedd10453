"""Families read from a named (3.13+) dump alone equal the build's own, and a dump's generation is read
from its keys; the real 3.13.5, main 84b7e9e3fa and main c97d3af239 dumps and their builds' names.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness.stats.collection import dump_files, from_dump
from pystats_harness.stats.dumps import DumpResult, parse_files, parse_text
from pystats_harness.stats.families import derived_families, dump_opcodes, dump_tables
from pystats_harness.stats.keys import NAMED, NUMBERED_3_11, NUMBERED_3_12, generation
from pystats_harness.stats.names import NameTables

DATA = Path(__file__).resolve().parents[1] / "data"
NAMED_DUMPS = ("3.13.5", "main-84b7e9e3fa-uops", "main-c97d3af239-uops")


def build_tables(version: str) -> NameTables:
    return NameTables.from_dict(json.loads((DATA / "dumps" / version / "names.json").read_text()))


def run1(version: str) -> DumpResult:
    return parse_files(dump_files(DATA / "dumps" / version / "run1"))


@pytest.mark.parametrize("version", NAMED_DUMPS)
def test_every_opcode_of_a_named_dump_has_the_builds_family(version: str) -> None:
    names, dump = build_tables(version), run1(version)
    derived = dump_tables(dump.raw)
    opcodes, _ = dump_opcodes(dump.raw)
    assert len(opcodes) > 30
    assert {op: derived.family(op) for op in opcodes} == {op: names.family(op) for op in opcodes}


@pytest.mark.parametrize("version", NAMED_DUMPS)
def test_the_rule_gives_the_builds_families_for_all_its_opcodes(version: str) -> None:
    """Not only the opcodes that ran: every opcode of the build, with the bases the dump marks."""
    names, dump = build_tables(version), run1(version)
    _, bases = dump_opcodes(dump.raw)
    every = [name for name in names.opnames if not name.startswith("<")]
    assert derived_families(every, bases) == {base: tuple(sorted(forms)) for base, forms in names.families.items()}


def test_forms_that_are_no_forms_and_a_base_without_a_marker() -> None:
    """``CALL_KW`` is a family of its own in 3.13; ``RESUME_CHECK`` is ``RESUME``'s though nothing marks it."""
    got = derived_families(["CALL_KW", "CALL_PY_EXACT_ARGS", "RESUME_CHECK", "LOAD_ATTR_SLOT"], ["CALL", "LOAD_ATTR"])
    assert got == {"CALL": ("CALL_PY_EXACT_ARGS",), "LOAD_ATTR": ("LOAD_ATTR_SLOT",), "RESUME": ("RESUME_CHECK",)}


def test_a_named_dump_without_its_build_is_summed_by_family() -> None:
    """``invoke stats`` without ``--rev``: the 3.13.5 dump's families and specialization counters, by name."""
    dump = run1("3.13.5")
    bare, built = from_dump(dump, None, {}), from_dump(dump, build_tables("3.13.5"), {})
    assert bare.metadata["naming"] == "dump-names" and bare.metadata["generation"] == "3.13+"
    family = {k: v for k, v in bare.counters.items() if k.startswith("family.") and "failure_kinds" not in k}
    assert family == {k: v for k, v in built.counters.items() if k in family}
    assert len(family) == len([k for k in built.counters if k.startswith("family.") and "failure_kinds" not in k])
    assert bare.counters["family.BINARY_OP.execution_count"] == 6832
    assert bare.counters["family.BINARY_OP.specialization.failure_kinds.kind_10"] == 7
    assert built.counters["family.BINARY_OP.specialization.failure_kinds.add_other"] == 7


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("dumps/3.11.2/run1", NUMBERED_3_11),
        ("dumps/3.13.5/run1", NAMED),
        ("dumps/main-c97d3af239-uops/run1", NAMED),
        ("canaries/3.13.5/calls-N.txt", NAMED),
    ],
)
def test_generation_of_real_dumps(path: str, expected: object) -> None:
    files = dump_files(DATA / path) if (DATA / path).is_dir() else [DATA / path]
    assert parse_files(files).generation == expected


def test_generation_from_keys() -> None:
    assert generation(["opcode[93].execution_count", "Calls via PyEval_EvalFrame[0]"]) == NUMBERED_3_12
    assert generation(["opcode[93].execution_count", "Calls to PyEval_EvalDefault"]) == NUMBERED_3_11
    assert generation(["opcode[LOAD_FAST].execution_count"]) == NAMED
    assert generation(["Calls to PyEval_EvalDefault", "Object allocations"]) is None
    assert parse_text("    opcode[93].execution_count : 3\n").generation == NUMBERED_3_11
