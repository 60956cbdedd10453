"""An export (:mod:`.summarize_json`, 3.13 shape: opcodes by name) as the ``summarize_stats.py`` of one
revision reads it, so that a revision's own script renders it, development commits included.

What a revision's script reads of a JSON input (read from the script's text, :meth:`ScriptReads.of`):

* **Opcode keys by number** (``opcode[122].specialization.hit``, ``pair_count[100]``): the script
  ``int()``s the key and names the number with the ``opcode`` module of the interpreter running it. So
  did every script from 2844aa6a8e (Nov 2022, two inputs) to 5dcbbd8861 (Sep 2023, "Dump and compare
  stats using opcode names"): 3.12.0, and 3.12 and 3.13 development before September 2023. For those,
  every opcode name is given the number it has in the build that runs the script (its ``names.json``),
  so a base of another build (numbered otherwise: ea72c6fe3b renumbered when it added
  ``BINARY_SUBSCR_STR_INT``) is read by name. An opcode the rendering build does not have has no
  number there: its keys are left out and listed (:attr:`Adapted.dropped`), never given another's.
* **Opcode keys by name**: from 5dcbbd8861 on (and the 3.13 release); the export is read as it is.
* **Failure kinds named from the rendering build's source** (``Python/specialize.c`` beside the script)
  until 19f5effc27 (Sep 2023) stored each input's own ``_defines`` in its JSON: a base whose kinds are
  numbered otherwise (a kind removed, the rest moved) would be named with the head's names. So each
  kind is given the number its define has in the rendering build; a kind whose define that build does
  not have keeps its number where that number is free there (shown as ``kind N``) and is left out
  (listed) where it would take another define's name.
* Every script after 2ba7c7f7b1 (Aug 2023) reads each GC generation's ``collections``, ``objects
  collected`` and ``object visits`` unguarded, for every generation up to the largest it sees, and
  ``Object`` keys it sums unguarded: ``Object`` keys are never invented here (a script that stops on a
  missing one says so in the diff's one line). 3.14's script also reads ``objects reachable from roots``
  and ``objects not reachable from roots`` of every generation, which no 3.13 build counts: for a 3.13
  side those are given as 0, and the diff's note says so (:attr:`Adapted.absent`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pystats_harness.stats.names import NameTables
from pystats_harness.stats.summarize_json import SCRIPT_GENERIC_MAX, script_prefix

#: ``opcode[NAME].rest`` and a rest's ``pair_count[NAME]``.
_OPCODE = re.compile(r"^opcode\[(?P<op>[^\]]+)\](?P<rest>.*)$")
_PAIR = re.compile(r"^\.pair_count\[(?P<op>[^\]]+)\]$")
_KIND = re.compile(r"^\.specialization\.failure_kinds\[(?P<kind>\d+)\]$")
_GC = re.compile(r"^GC\[(\d+)\] ")


@dataclass(frozen=True)
class ScriptReads:
    """What one revision's summarize_stats.py reads of a JSON input."""

    numbered_opcodes: bool
    own_defines: bool = True  # names each input's failure kinds with the input's ``_defines``
    gc_keys: tuple[str, ...] = ()  # what it reads of every GC generation, unguarded
    kept_kinds: int | None = None  # its failure-kind list's fixed length (3.12, 3.13: 40; 3.14: as long as needed)

    @classmethod
    def of(cls, script: str) -> ScriptReads:
        """From the script's text: ``opcode_stats[int(n)]`` in its ``extract_opcode_stats`` (before
        5dcbbd8861); ``"_defines"`` read from its inputs (19f5effc27 on); ``gen["..."]`` of its GC
        section."""
        return cls(
            numbered_opcodes=re.search(r"opcode_stats\[int\(\w+\)\]", script) is not None,
            own_defines='"_defines"' in script,
            gc_keys=tuple(dict.fromkeys(re.findall(r'\bgen\["([^"]+)"\]', script))),
            kept_kinds=int(m[1]) if (m := re.search(r"\bfailure_kinds\s*=\s*\[0\]\s*\*\s*(\d+)\b", script)) else None,
        )


@dataclass(frozen=True)
class Adapted:
    """The export as the script reads it, and the opcodes it had to leave out (with how many keys each)."""

    doc: dict[str, Any]
    dropped: Mapping[str, int]
    absent: tuple[str, ...] = ()  # GC counters the script reads that the export's build does not count

    def note(self, side: str, what: str) -> str:
        """One line on what was left out or given as 0 (empty when nothing was)."""
        notes = []
        if self.dropped:
            named = ", ".join(sorted(self.dropped))
            notes.append(
                f"the {side}'s {named} are not in {what}'s tables (no number in its build, or no room in its lists)"
            )
        if self.absent:
            notes.append(
                f"the {side}'s build does not count {', '.join(self.absent)}, which {what} reads:"
                " its tables show 0 there, not a count"
            )
        return "; ".join(notes)


def _numbers(names: NameTables) -> dict[str, int]:
    """Opcode name -> number in the build of ``names``; an unnamed ``<N>`` is its own number."""
    return {name: n for n, name in enumerate(names.opnames) if not name.startswith("<")}


def _kind_there(doc: Mapping[str, Any], family: str, kind: int, names: NameTables) -> int | None:
    """The export's failure kind ``kind`` of ``family`` numbered as the build of ``names`` numbers its
    define (the script names a family's kind by the define with the family's prefix); None where that
    build has no such define and ``kind`` is another of the family's defines there."""
    if kind <= SCRIPT_GENERIC_MAX:
        return kind
    prefix = script_prefix(family) + "_"
    ours = next((n for n in (doc.get("_defines") or {}).get(str(kind), []) if n.startswith(prefix)), None)
    theirs = {name: value for name, value in names.spec_fail if name.startswith(prefix)}
    if ours is not None and ours in theirs:
        return theirs[ours]
    return None if kind in theirs.values() else kind


def for_script(doc: Mapping[str, Any], reads: ScriptReads, names: NameTables) -> Adapted:
    """Pure: ``doc`` (an export) as a script that ``reads`` so reads it, opcodes numbered as in the
    build of ``names`` (the one running the script) where it reads numbers, failure kinds as its
    defines number them where it names them from its own source."""
    if not reads.numbered_opcodes and reads.own_defines:
        return _fitted(Adapted(dict(doc), {}), reads)
    numbers = _numbers(names)
    dropped: dict[str, int] = {}

    def number(op: str) -> int | None:
        if op.startswith("<") and op.endswith(">") and op[1:-1].isdigit():
            return int(op[1:-1])
        if op.isdigit():
            return int(op)
        return numbers.get(op)

    out: dict[str, Any] = {}
    for key, value in doc.items():
        match = _OPCODE.match(key)
        if match is None:
            out[key] = value
            continue
        op, rest = match["op"], match["rest"]
        kind = _KIND.match(rest)
        if kind and not reads.own_defines:
            k = int(kind["kind"])
            k_there = _kind_there(doc, names.family(op), k, names)
            if k_there is None:
                what = f"failure kind {k} ({', '.join((doc.get('_defines') or {}).get(str(k), []))})"
                dropped[what] = dropped.get(what, 0) + 1
                continue
            rest = f".specialization.failure_kinds[{k_there}]"
        if not reads.numbered_opcodes:
            out[f"opcode[{op}]{rest}"] = out.get(f"opcode[{op}]{rest}", 0) + value
            continue
        n = number(op)
        pair = _PAIR.match(rest)
        m = number(pair["op"]) if pair else None
        if n is None or (pair and m is None):
            missing = f"opcode {op if n is None else pair['op'] if pair else op}"
            dropped[missing] = dropped.get(missing, 0) + 1
            continue
        renamed = f"opcode[{n}]" + (f".pair_count[{m}]" if pair else rest)
        out[renamed] = out.get(renamed, 0) + value
    return _fitted(Adapted(out, dropped), reads)


def _fitted(adapted: Adapted, reads: ScriptReads) -> Adapted:
    """What every script gets, whatever it numbers: the kinds its lists hold, every GC counter it reads."""
    return _with_gc_keys(_kinds_kept(adapted, reads), reads)


def _kinds_kept(adapted: Adapted, reads: ScriptReads) -> Adapted:
    """Without the failure kinds the script's fixed-length list has no room for (3.14 has 60 and sizes
    its list to fit; 3.13's script keeps 40, and stops on an IndexError at a larger one): left out,
    listed in :attr:`Adapted.dropped`."""
    if reads.kept_kinds is None:
        return adapted
    doc, dropped = {}, dict(adapted.dropped)
    for key, value in adapted.doc.items():
        kind = _KIND.match(m["rest"]) if (m := _OPCODE.match(key)) else None
        if kind and int(kind["kind"]) >= reads.kept_kinds:
            what = f"failure kinds {reads.kept_kinds}+ (the script keeps {reads.kept_kinds})"
            dropped[what] = dropped.get(what, 0) + 1
            continue
        doc[key] = value
    return Adapted(doc, dropped, adapted.absent)


def _with_gc_keys(adapted: Adapted, reads: ScriptReads) -> Adapted:
    """Every GC generation of the export with each counter the script reads of it: one the export's
    build does not count (3.14's ``objects reachable from roots`` in a 3.13 base) is given as 0 and
    named in :attr:`Adapted.absent`, so that the script renders instead of stopping on a KeyError."""
    generations = sorted({int(m[1]) for key in adapted.doc if (m := _GC.match(key))})
    doc, absent = dict(adapted.doc), []
    for name in reads.gc_keys:
        missing = [n for n in generations if f"GC[{n}] {name}" not in doc]
        for n in missing:
            doc[f"GC[{n}] {name}"] = 0
        if missing:
            absent.append(f"GC[{missing[0]}..{missing[-1]}] {name}" if len(missing) > 1 else f"GC[{missing[0]}] {name}")
    return Adapted(doc, adapted.dropped, tuple(absent)) if absent else adapted
