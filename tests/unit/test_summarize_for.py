"""The export as one revision's summarize_stats.py reads it (stats/summarize_for.py): opcodes numbered as
in the rendering build for a script that reads numbers, failure kinds as its own source numbers them,
what it cannot number left out and listed, and a script that reads names given the export as it is."""

from __future__ import annotations

from pystats_harness.stats.names import NAMES_SCHEMA, NameTables
from pystats_harness.stats.summarize_for import ScriptReads, for_script

#: The head of ea72c6fe3b's kind: BINARY_SUBSCR_STR_INT is new, so the numbers after it moved.
HEAD = NameTables.from_dict(
    {
        "schema": NAMES_SCHEMA,
        "python_version": "3.13.0a0",
        "opnames": ["CACHE", "POP_TOP", "BINARY_SUBSCR", "BINARY_SUBSCR_STR_INT", "BINARY_SUBSCR_DICT", "<5>"],
        "families": {"BINARY_SUBSCR": ["BINARY_SUBSCR", "BINARY_SUBSCR_STR_INT", "BINARY_SUBSCR_DICT"]},
        "spec_fail": [["OTHER", 0], ["SUBSCR_LIST_SLICE", 9], ["ATTR_MUTABLE_CLASS", 13], ["SUBSCR_TUPLE_SLICE", 14]],
        "eval_call": [],
    }
)

#: The base's export (by name, as collect writes it), with its own defines: ``SUBSCR_STRING_INT`` 13.
BASE_EXPORT = {
    "opcode[BINARY_SUBSCR].execution_count": 2011,
    "opcode[BINARY_SUBSCR].specialization.failure_kinds[13]": 9,
    "opcode[BINARY_SUBSCR].specialization.failure_kinds[14]": 2,
    "opcode[BINARY_SUBSCR].specialization.failure_kinds[10]": 1,
    "opcode[BINARY_SUBSCR_DICT].execution_count": 1999,
    "opcode[BINARY_SUBSCR].pair_count[POP_TOP]": 7,
    "opcode[BINARY_SUBSCR_GETITEM].execution_count": 3,
    "opcode[<5>].execution_count": 1,
    "GC[0] collections": 1,
    "__nfiles__": 2,
    "_defines": {
        "0": ["OTHER"],
        "10": ["SUBSCR_LIST_SLICE"],
        "13": ["ATTR_MUTABLE_CLASS", "SUBSCR_STRING_INT"],
        "14": ["SUBSCR_TUPLE_SLICE"],
    },
}

NUMBERED_SCRIPT = """
def extract_opcode_stats(stats):
    opcode_stats = [ {} for _ in range(256) ]
    for key, value in stats.items():
        n, _, rest = key[7:].partition("]")
        opcode_stats[int(n)][rest.strip(".")] = value
"""
NAMED_SCRIPT = """
def extract_opcode_stats(stats):
    opcode_stats = collections.defaultdict(dict)
        opcode_stats[name][rest.strip(".")] = value
    defines = stats["_defines"]
"""


def test_what_a_script_reads_is_read_from_its_text() -> None:
    assert ScriptReads.of(NUMBERED_SCRIPT) == ScriptReads(numbered_opcodes=True, own_defines=False)
    assert ScriptReads.of(NAMED_SCRIPT) == ScriptReads(numbered_opcodes=False, own_defines=True)


def test_a_script_that_reads_names_and_its_inputs_defines_gets_the_export_as_it_is() -> None:
    adapted = for_script(BASE_EXPORT, ScriptReads.of(NAMED_SCRIPT), HEAD)
    assert adapted.doc == BASE_EXPORT and dict(adapted.dropped) == {} and adapted.note("base", "x") == ""


def test_a_script_that_reads_numbers_gets_the_rendering_builds_numbers_by_name() -> None:
    adapted = for_script(BASE_EXPORT, ScriptReads.of(NUMBERED_SCRIPT), HEAD)
    doc = adapted.doc
    assert doc["opcode[2].execution_count"] == 2011  # BINARY_SUBSCR
    assert doc["opcode[4].execution_count"] == 1999  # BINARY_SUBSCR_DICT: 3 in the base's build, 4 in the head's
    assert doc["opcode[2].pair_count[1]"] == 7
    assert doc["opcode[5].execution_count"] == 1  # an unnamed opcode keeps its number
    assert doc["GC[0] collections"] == 1 and doc["__nfiles__"] == 2 and doc["_defines"] == BASE_EXPORT["_defines"]
    assert not any(key.startswith("opcode[BINARY") for key in doc)
    # BINARY_SUBSCR_GETITEM has no number in the head's build: left out and said, never given another's
    assert dict(adapted.dropped) == {"opcode BINARY_SUBSCR_GETITEM": 1}
    assert "BINARY_SUBSCR_GETITEM" in adapted.note("base", "ea72c6fe3b")


def test_failure_kinds_are_numbered_as_the_rendering_builds_defines_by_their_family_name() -> None:
    doc = for_script(BASE_EXPORT, ScriptReads.of(NUMBERED_SCRIPT), HEAD).doc
    kinds = {k: v for k, v in doc.items() if "failure_kinds" in k}
    assert kinds == {
        # SUBSCR_STRING_INT is gone in the head and 13 is no SUBSCR define there: it stays "kind 13"
        "opcode[2].specialization.failure_kinds[13]": 9,
        # SUBSCR_LIST_SLICE is 10 in the base, 9 in the head
        "opcode[2].specialization.failure_kinds[9]": 1,
        "opcode[2].specialization.failure_kinds[14]": 2,
    }


def test_a_kind_whose_number_is_another_define_of_its_family_there_is_left_out() -> None:
    base = {
        "opcode[BINARY_SUBSCR].specialization.failure_kinds[14]": 5,
        "_defines": {"14": ["SUBSCR_OLD_KIND"]},
    }
    adapted = for_script(base, ScriptReads.of(NUMBERED_SCRIPT), HEAD)
    assert adapted.doc == {"_defines": {"14": ["SUBSCR_OLD_KIND"]}}
    assert dict(adapted.dropped) == {"failure kind 14 (SUBSCR_OLD_KIND)": 1}


#: What 3.14's summarize_stats reads of each GC generation (its gc_stats_section).
SCRIPT_314_GC = """
def gc_stats_section() -> Section:
    def calc_gc_stats(stats: Stats) -> Rows:
        return [(Count(i), Count(gen["collections"]), Count(gen["objects collected"]),
                 Count(gen["object visits"]), Count(gen["objects reachable from roots"]),
                 Count(gen["objects not reachable from roots"])) for (i, gen) in enumerate(gc_stats)]
"""


def test_gc_counters_a_script_reads_that_a_sides_build_does_not_count_are_zero_and_named() -> None:
    reads = ScriptReads.of(SCRIPT_314_GC)
    assert reads.gc_keys == (
        "collections",
        "objects collected",
        "object visits",
        "objects reachable from roots",
        "objects not reachable from roots",
    )
    base_313 = {f"GC[{n}] {k}": 5 for n in range(3) for k in ("collections", "objects collected", "object visits")}
    adapted = for_script(base_313, reads, HEAD)
    assert adapted.doc["GC[2] objects reachable from roots"] == 0 and adapted.doc["GC[0] collections"] == 5
    assert adapted.absent == ("GC[0..2] objects reachable from roots", "GC[0..2] objects not reachable from roots")
    note = adapted.note("base", "the script of v3.14.7")
    assert "the base's build does not count GC[0..2] objects reachable from roots" in note and "not a count" in note
    # a side that counts them (3.14) is given as it is, and says nothing
    head_314 = {**base_313, **{f"GC[{n}] objects{w} reachable from roots": 1 for n in range(3) for w in ("", " not")}}
    same = for_script(head_314, reads, HEAD)
    assert same.doc == head_314 and same.absent == () and same.note("head", "x") == ""


def test_failure_kinds_a_313_script_has_no_room_for_are_left_out_and_listed_a_314_script_takes_all() -> None:
    script_313 = "        failure_kinds = [0] * 40\n        for key in family_stats:\n"
    script_314 = "        failure_kinds = [0] * (max_index + 1)\n"
    assert ScriptReads.of(script_313).kept_kinds == 40 and ScriptReads.of(script_314).kept_kinds is None
    export = {
        "opcode[BINARY_OP].specialization.failure_kinds[48]": 3,
        "opcode[BINARY_OP].specialization.failure_kinds[12]": 1,
        "opcode[BINARY_OP].execution_count": 10,
    }
    narrow = for_script(export, ScriptReads.of(script_313), HEAD)
    assert "opcode[BINARY_OP].specialization.failure_kinds[48]" not in narrow.doc
    assert narrow.doc["opcode[BINARY_OP].specialization.failure_kinds[12]"] == 1
    assert narrow.dropped == {"failure kinds 40+ (the script keeps 40)": 1}
    assert "failure kinds 40+" in narrow.note("head", "the script of v3.13.5")
    assert for_script(export, ScriptReads.of(script_314), HEAD).doc == export
