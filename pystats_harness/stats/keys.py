"""The raw keys of a pystats dump, classified: what kind of counter each line is, and its parts.

``opcode[LOAD_ATTR].specialization.hit`` is a ``specialization`` stat with parts
``("LOAD_ATTR", "hit")``; ``GC[0] collections`` a ``gc`` stat with parts ``("0", "collections")``.
Every generation's keys are known (3.11/3.12 opcode numbers, 3.13+ names, GC, rare events,
optimizer and uop lines, free-threading lines); anything else is ``other``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pystats_harness.errors import StatsParseError


class Kind(enum.StrEnum):
    OPCODE = "opcode"
    SPECIALIZABLE = "specializable"
    SPECIALIZATION = "specialization"
    FAILURE_KIND = "failure_kind"
    PAIR = "pair"
    CALL = "call"
    OBJECT = "object"
    GC = "gc"
    UOP = "uop"
    UOP_PAIR = "uop_pair"
    OPTIMIZER = "optimizer"
    RARE_EVENT = "rare_event"
    FREE_THREADING = "free_threading"
    OTHER = "other"


KINDS: tuple[str, ...] = tuple(Kind)

_NAME = r"[A-Za-z0-9_]+"
_OPCODE_RE = re.compile(
    rf"opcode\[({_NAME})\]\.(?:(execution_count|specializable)"
    rf"|specialization\.(success|failure|hit|deferred|miss|deopt)"
    rf"|specialization\.failure_kinds\[([0-9]+)\]|pair_count\[({_NAME})\])"
)
_UOP_RE = re.compile(rf"uops\[({_NAME})\]\.(execution_count|specialization\.miss)")
_UOP_PAIR_RE = re.compile(rf"uop\[({_NAME})\]\.pair_count\[({_NAME})\]")
_OPT_OPCODE_RE = re.compile(rf"(unsupported_opcode|error_in_opcode)\[({_NAME})\]\.count")
_EVAL_CALL_RE = re.compile(r"Calls via PyEval_EvalFrame\[([0-9]+)\]")
_GC_RE = re.compile(r"GC\[([0-9]+)\] ([A-Za-z][A-Za-z ]*)")
_RARE_RE = re.compile(r"Rare event \(([A-Za-z0-9_]+)\)")
_HIST_RE = re.compile(r"((?:Trace|Optimized trace)[A-Za-z ]*)\[([0-9]+)\]")
_FT_RE = re.compile(r"[A-Z][A-Za-z ]* \(([a-z0-9_]+)\)")
_WORDS_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_ ()/-]*")
_OPT_PREFIXES = ("Optimization ", "Optimizer ", "Executors ", "JIT ")


def snake(text: str) -> str:
    """``'Object materialize dict (on request)'`` -> ``'object_materialize_dict_on_request'``."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclass(frozen=True, slots=True)
class Stat:
    """One counter: its kind, the parts of its key (names or numbers as text) and its value."""

    kind: str
    parts: tuple[str, ...]
    value: int
    raw: str


@lru_cache(maxsize=1 << 16)
def classify_key(key: str) -> tuple[str, tuple[str, ...]]:
    kind, parts = _classify_parts(key)
    if not all(parts):  # e.g. "Object ()": no usable name
        return "other", (key,)
    return kind, parts


def _classify_parts(key: str) -> tuple[str, tuple[str, ...]]:
    m = _OPCODE_RE.fullmatch(key)
    if m:
        op, plain, spec, fail, pair = m.groups()
        if plain == "specializable":
            return "specializable", (op,)
        if plain:
            return "opcode", (op, plain)
        if spec:
            return "specialization", (op, spec)
        if fail is not None:
            return "failure_kind", (op, fail)
        return "pair", (op, pair)
    if key.startswith("uop"):
        m = _UOP_RE.fullmatch(key)
        if m:
            name = m.group(1) if m.group(1).startswith("_") else "_" + m.group(1)  # pre-3.13.0 names
            return "uop", (name, m.group(2))
        m = _UOP_PAIR_RE.fullmatch(key)
        if m:
            return "uop_pair", m.groups()
    if key.startswith("Calls via "):
        m = _EVAL_CALL_RE.fullmatch(key)
        if m:
            return "call", ("via_pyeval_evalframe", m.group(1))
    elif key.startswith(("Calls ", "Frame")) and _WORDS_RE.fullmatch(key):
        return "call", (snake(key[6:] if key.startswith("Calls ") else key),)
    if key.startswith("Object ") and _WORDS_RE.fullmatch(key):
        return "object", (snake(key[7:]),)
    m = _GC_RE.fullmatch(key)
    if m:
        return "gc", (m.group(1), snake(m.group(2)))
    m = _RARE_RE.fullmatch(key)
    if m:
        return "rare_event", (m.group(1),)
    m = _HIST_RE.fullmatch(key)
    if m:
        return "optimizer", ("histogram", snake(m.group(1)), m.group(2))
    m = _OPT_OPCODE_RE.fullmatch(key)
    if m:
        return "optimizer", m.groups()
    if key.startswith(_OPT_PREFIXES) and _WORDS_RE.fullmatch(key):
        words = key.split(" ", 1)
        if words[0] in ("Optimization", "Optimizer"):
            return "optimizer", (snake(words[1]),)
        return "optimizer", (snake(key),)
    m = _FT_RE.fullmatch(key)
    if m:
        return "free_threading", (m.group(1),)
    return "other", (key,)


def classify(key: str, value: int = 0) -> Stat:
    """Turn one raw key (as printed, stripped) and its value into a typed :class:`Stat`."""
    kind, parts = classify_key(key)
    return Stat(kind, parts, value, key)


@dataclass(frozen=True, slots=True)
class Generation:
    """What a dump's keys say about the CPython that wrote it: ``label`` names the shape (``3.11``,
    ``3.12``, ``3.13+``), ``numbered`` whether its opcodes are numbers a build's tables must name."""

    label: str
    numbered: bool


#: 3.11 and 3.12 dumps print ``opcode[157]``; 3.13+ (GH-109330, 3.13.0a1) ``opcode[LOAD_ATTR]``.
NUMBERED_3_11 = Generation("3.11", numbered=True)
NUMBERED_3_12 = Generation("3.12", numbered=True)
NAMED = Generation("3.13+", numbered=False)


def generation(keys: Iterable[str]) -> Generation | None:
    """The one place that reads a dump's generation from its raw keys (None: no opcode lines).

    Opcode numbers (``opcode[157].execution_count``) are 3.11/3.12; among them, ``Calls via
    PyEval_EvalFrame[i]`` (bbcf42449e, 3.12.0a1) tells 3.12 from 3.11.  Opcode names are 3.13+. Both in
    one sum are dumps of different builds: StatsParseError (exit 12).
    """
    numbered = named = calls_via = False
    for key in keys:
        if key.startswith("opcode["):
            if key[7:8].isdigit():
                numbered = True
            else:
                named = True
        elif key.startswith("Calls via PyEval_EvalFrame["):
            calls_via = True
    if numbered and named:
        raise StatsParseError(
            "the dumps mix opcode numbers (3.11/3.12: opcode[157]) and opcode names (3.13+: opcode[LOAD_ATTR]), "
            "so they come from different builds; summarize each build's dumps on its own"
        )
    if numbered:
        return NUMBERED_3_12 if calls_via else NUMBERED_3_11
    return NAMED if named else None
