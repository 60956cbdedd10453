"""Opcode families of a dump that names its opcodes (3.13+), read from the dump alone.

Without the build's ``names.json`` (``invoke stats`` without ``--rev``) the families are derived
from what a named dump prints: each ``opcode[X].specializable`` line marks a family base, and every
other opcode the dump names belongs to the longest base it extends (``LOAD_ATTR_SLOT`` to
``LOAD_ATTR``, ``BINARY_OP_ADD_INT`` to ``BINARY_OP``). Opcodes that extend a base's name without
being one of its forms are their own family (``NOT_FORMS``: ``CALL_KW`` is no form of ``CALL`` in
3.13), and a form whose base the dump does not mark is placed with it (``FORMS_OF_UNMARKED``:
``RESUME_CHECK``). ``tests/unit/test_families.py`` checks the rule against the ``names.json`` of
real 3.13 builds (v3.13.5, main 84b7e9e3fa and c97d3af239): the families it gives are the build's.

Failure kinds and call kinds stay unnamed (``kind_N``): their names are in the build's sources.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pystats_harness.stats.keys import classify_key
from pystats_harness.stats.names import NameTables

#: Opcodes whose names extend a family base's without being its forms (3.11-3.13).
NOT_FORMS = frozenset(
    {"CALL_FUNCTION_EX", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2", "CALL_KW", "JUMP_BACKWARD_NO_INTERRUPT"}
)
#: Specialized forms whose base prints no ``specializable`` line (3.13: ``RESUME`` has no cache).
FORMS_OF_UNMARKED = {"RESUME_CHECK": "RESUME"}
#: The python_version of tables read from a dump (the dump does not say which 3.13+ it is).
UNKNOWN_VERSION = "?"


def dump_opcodes(keys: Iterable[str]) -> tuple[set[str], set[str]]:
    """``(opcodes, bases)``: every opcode name the raw keys mention, and those marked specializable."""
    opcodes: set[str] = set()
    bases: set[str] = set()
    for key in keys:
        kind, parts = classify_key(key)
        if kind == "specializable":
            bases.add(parts[0])
        if kind in ("opcode", "specializable", "specialization", "failure_kind"):
            opcodes.add(parts[0])
        elif kind == "pair":
            opcodes.update(parts)
    return opcodes, bases


def derived_families(opcodes: Iterable[str], bases: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``{base: (form, ...)}`` for the bases that have forms among ``opcodes`` (see the module docstring)."""
    marked = sorted(set(bases), key=len, reverse=True)
    families: dict[str, list[str]] = {}
    for name in sorted(set(opcodes) - set(marked) - NOT_FORMS):
        base = FORMS_OF_UNMARKED.get(name) or next((b for b in marked if name.startswith(b + "_")), None)
        if base is not None:
            families.setdefault(base, []).append(name)
    return {base: tuple(forms) for base, forms in sorted(families.items())}


def dump_tables(raw: Mapping[str, int]) -> NameTables:
    """Name tables of a named dump: its families only (opcodes are already names)."""
    opcodes, bases = dump_opcodes(raw)
    return NameTables(python_version=UNKNOWN_VERSION, families=derived_families(opcodes, bases))
