"""Export dumps as the JSON that ``Tools/scripts/summarize_stats.py --json-output`` writes (3.13 shape).

The document holds the summed raw keys of the dumps (``opcode[LOAD_ATTR].specialization.hit``,
``GC[0] collections``, ...), ``__nfiles__``, and the tables a 3.13 script stores so that a saved
JSON renders without the interpreter or source tree that made it: ``_specialized_instructions``,
``_defines`` (``SPEC_FAIL_*``) and ``_stats_defines`` (``EVAL_CALL_*``), all taken from the build's
own ``names.json``.  ``_pystats_harness`` records where the dumps came from (the scripts ignore it),
and ``negative_keys`` the keys whose printed uint64 wrapped below zero (exported signed, with the
number of dump files in which each did).

For a 3.13 build the export equals the revision's own ``--json-output`` of the same files.  Numeric
3.11/3.12 dumps are named with the build's opcode table, so that ``summarize_stats.py`` of 3.13
renders them and compares them with a newer run by name.  Two things of 3.11 are adjusted so that
the 3.13 script labels 3.11's failure kinds as the harness (and 3.11's own script) does: the script
treats kinds 0-8 as generic (3.11: 0-6), so 3.11's family-specific kinds are moved up by the
difference (``failure_kind_offset``), and where a family's defines carry another prefix than the
one the script looks for (3.11: ``PRECALL`` uses ``SPEC_FAIL_CALL_*``, ``FOR_ITER`` uses
``SPEC_FAIL_FOR_ITER_*`` where the script looks for ``ITER``), an alias with that prefix is added.

Tier-2 lines (``Optimization attempts``, ``Trace length[16]``, ``uops[_NAME].execution_count``,
``uop[_A].pair_count[_B]``, ``unsupported_opcode[NAME].count``, ...) are carried as the dumps print
them, summed, except that a uop name without its leading underscore (dumps before 142502ea8d) gets
one, as 3.13's script does when it reads such dumps (the names so changed are listed in
``uops_underscored``).  3.13's script reads the optimizer's scalar keys unguarded, so it stops with
a KeyError on an export of a dump older than 50369e6c34; ``tier2_missing_for_313_script`` lists
the keys it would miss (nothing is invented for them).

Which script reads it: 3.13's (3.13.5 tested) reads every export (of 3.11, 3.12 and 3.13 runs); 3.12's
reads JSON only with opcode *numbers* of its own build (it ``int()``s the key), 3.11's no JSON at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.stats.dumps import DumpResult, parse_files
from pystats_harness.stats.keys import classify
from pystats_harness.stats.names import NameTables
from pystats_harness.stats.tier2 import missing_for_313_script

#: The key holding the harness's own metadata (no summarize_stats.py reads keys starting with ``_p``).
METADATA_KEY = "_pystats_harness"
SCHEMA = "pystats-harness/summarize-json/1"
#: summarize_stats.py 3.12+ names failure kinds 0..8 from the generic defines.
SCRIPT_GENERIC_MAX = 8


def script_prefix(family: str) -> str:
    """The define prefix summarize_stats.py 3.12+ looks up a family's failure kinds with."""
    if family == "LOAD_SUPER_ATTR":
        return "SUPER"
    if family.endswith("ATTR"):
        return "ATTR"
    if family in ("FOR_ITER", "SEND"):
        return "ITER"
    if family.endswith("SUBSCR"):
        return "SUBSCR"
    return family


def failure_kind_offset(names: NameTables) -> int:
    """How far family-specific failure kinds move so that the script's generic range fits (3.11: 2)."""
    generic_max = names.generic_fail_max()
    return SCRIPT_GENERIC_MAX - generic_max if 0 <= generic_max < SCRIPT_GENERIC_MAX else 0


def _kind(kind: int, names: NameTables, offset: int) -> int:
    return kind + offset if kind > names.generic_fail_max() else kind


def _named_key(key: str, names: NameTables, offset: int, unnamed: set[str], underscored: set[str]) -> str:
    """``key`` as a 3.13 dump prints it: opcode numbers named, failure kinds moved by ``offset``, a uop
    name without its leading underscore (before 142502ea8d) given one (into ``underscored``)."""
    stat = classify(key)
    parts = stat.parts

    def op(part: str) -> str:
        name = names.opname(part)
        if name.startswith("<"):
            unnamed.add(part)
        return name

    if stat.kind == "opcode":
        return f"opcode[{op(parts[0])}].{parts[1]}"
    if stat.kind == "specializable":
        return f"opcode[{op(parts[0])}].specializable"
    if stat.kind == "specialization":
        return f"opcode[{op(parts[0])}].specialization.{parts[1]}"
    if stat.kind == "failure_kind":
        return f"opcode[{op(parts[0])}].specialization.failure_kinds[{_kind(int(parts[1]), names, offset)}]"
    if stat.kind == "pair":
        return f"opcode[{op(parts[0])}].pair_count[{op(parts[1])}]"
    if key.startswith("uops[") and key[5:6] != "_":
        underscored.add(key[5:].partition("]")[0])
        return "uops[_" + key[5:]  # as the 3.13 script does when it reads such dumps
    return key


def _defines(names: NameTables, offset: int, families: set[str]) -> dict[str, list[str]]:
    """``SPEC_FAIL_*`` by (moved) value, in file order, plus an alias wherever the harness names a
    failing family's kind by a define whose prefix is not the one the script looks for."""
    defines = _grouped(names.spec_fail, lambda value: _kind(value, names, offset))
    for family in sorted(families):
        theirs = script_prefix(family)
        for listed in defines.values():
            if any(name.startswith(theirs) for name in listed):
                continue  # the script finds its own name here
            for ours in names.fail_prefixes(family):
                found = next((name for name in listed if name.startswith(ours + "_")), None)
                if found is not None:
                    listed.append(theirs + found[len(ours) :])
                    break
    return defines


def _grouped(pairs: Sequence[tuple[str, int]], move: Callable[[int], int] = int) -> dict[str, list[str]]:
    """``{str(value): [NAME, ...]}`` in file order, as the script stores its defines (values moved)."""
    out: dict[str, list[str]] = {}
    for name, value in pairs:
        out.setdefault(str(move(value)), []).append(name)
    return out


def _specialized_instructions(names: NameTables) -> list[str]:
    """Specialized forms without superinstructions (``__``) and 3.11's unspecialized ``*_ADAPTIVE``."""
    members = {m for base, ms in names.families.items() for m in ms if m != base}
    return sorted(m for m in members if "__" not in m and not m.endswith("_ADAPTIVE"))


def summarize_json(dump: DumpResult, names: NameTables, origin: Mapping[str, Any]) -> dict[str, Any]:
    """The summarize_stats.py JSON (3.13 shape) of ``dump``, named with the build's ``names``.

    ``origin`` (revision, sha, python_version, ... of the build) is recorded under ``METADATA_KEY``."""
    offset = failure_kind_offset(names)
    unnamed: set[str] = set()
    underscored: set[str] = set()
    doc: dict[str, Any] = {}
    failing: set[str] = set()
    for key, value in dump.raw.items():
        named = _named_key(key, names, offset, unnamed, underscored)
        doc[named] = doc.get(named, 0) + value
        if ".failure_kinds[" in named:
            failing.add(named[len("opcode[") : named.index("]")])
    shape = dump.generation
    numeric = shape is not None and shape.numbered
    doc["__nfiles__"] = len(dump.sources)
    doc["_specialized_instructions"] = _specialized_instructions(names)
    doc["_stats_defines"] = _grouped(names.eval_call)
    doc["_defines"] = _defines(names, offset, failing)
    doc[METADATA_KEY] = {
        **dict(origin),
        "schema": SCHEMA,
        "python_version": origin.get("python_version") or names.python_version,
        "opcode_keys": "numbers, named with the build's names.json" if numeric else "names",
        "unnamed_opcodes": sorted(unnamed, key=int),
        "failure_kind_offset": offset,
        "uops_underscored": sorted(underscored),
        "tier2_missing_for_313_script": missing_for_313_script(dump.raw),
        "warnings": len(dump.warnings),
        "negative_keys": dict(dump.negative),
    }
    return doc


def write_summarize_json(
    paths: Sequence[Path], names: NameTables, origin: Mapping[str, Any], out: Path, *, lenient: bool = False
) -> dict[str, Any]:
    """Parse the dump files ``paths`` (summed), write their export to ``out`` atomically, return it."""
    doc = summarize_json(parse_files([Path(p) for p in paths], lenient=lenient), names, origin)
    write_json_atomic(Path(out), doc)
    return doc
