"""The numbers of a collection's summary (:mod:`pystats_harness.stats.summary` shows them): one row per
opcode family, and the header's totals.

Hit % and miss % are those of ``Tools/scripts/summarize_stats.py``'s "specialization stats for X
family" tables: a family's ``specialization.hit`` and ``.miss`` over its *specialization total*,
``hit + miss + execution_count`` of the family's base instruction (3.12+, ``TOTAL`` of the 3.12.0 and
3.13.5 scripts); 3.11's script adds ``deferred`` to that total (its base instruction's count is only
the unquickened executions; the deferred ones run as ``X_ADAPTIVE``). Hits are specialized
instructions that complete, misses those that deopt, and the base's executions are the ones that ran
unspecialized (deferred, or trying to specialize): the total is the family's executions up to the few
that CPython counts twice or not at all. Deferred and deopt are counts, as the dumps give them.

A family *specializes* when the dump marks its base ``specializable`` and it has specialization
counters; one that cannot (``LOAD_FAST``, or 3.13's ``BINARY_SLICE``, marked but with no forms) has
no hit, miss, deferred, deopt or failure kinds (``None``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pystats_harness.stats.collection import Collection, Number

#: What ``metadata["naming"]`` says about where opcode names came from.
NAMING_WORDS = {
    "names.json": "opcodes named by the build",
    "dump-names": "opcodes named by the dump",
    "numeric-unnamed": "opcode numbers",
}


def count(value: Number) -> str:
    """A count with thousands separators, exact for an int of any size (a float is rounded)."""
    return f"{value:,d}" if isinstance(value, int) else f"{value:,.0f}"


def percent(ratio: float | None) -> str:
    """``93.5%``; ``–`` for a ratio of nothing."""
    return "–" if ratio is None else f"{100 * ratio:.1f}%"


def _ratio(part: Number, whole: Number) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class FamilyRow:
    """One opcode family as the summary shows it (``None``: the family cannot specialize)."""

    family: str
    executions: Number
    share: float | None
    specializes: bool
    hit: float | None = None
    miss: float | None = None
    deferred: Number | None = None
    deopt: Number | None = None
    #: (failure kind, count), most frequent first: ``add_other`` with the build's names, else ``kind_12``
    failures: tuple[tuple[str, Number], ...] = ()


def instructions(c: Collection) -> Number:
    """All instructions executed (tier 1): the sum of every opcode's ``execution_count``."""
    return sum(v for k, v in c.counters.items() if k.startswith("opcode.") and k.endswith(".execution_count"))


def deferred_in_total(c: Collection) -> bool:
    """Whether summarize_stats.py of the dump's version counts ``deferred`` in the total (3.11): the
    build's Python version when known, else the dump's shape (``Calls via PyEval_EvalFrame`` lines)."""
    meta = c.metadata
    version = str(meta.get("python_version") or "?")
    if version != "?":
        return version.startswith("3.11")
    return meta.get("generation") == "3.11"


def spec_total(c: Collection, family: str) -> Number:
    """The denominator of hit % and miss % (see the module docstring)."""
    kinds = ("hit", "miss", "deferred") if deferred_in_total(c) else ("hit", "miss")
    spec = sum(c.get(f"family.{family}.specialization.{kind}", 0) for kind in kinds)
    return spec + c.get(f"opcode.{family}.execution_count", 0)


def specializes(c: Collection, family: str) -> bool:
    marked = c.metadata.get("specializable")
    if marked is not None and family not in marked:
        return False
    return any(k.startswith(f"family.{family}.specialization.") for k in c.counters)


def failures(c: Collection, family: str) -> tuple[tuple[str, Number], ...]:
    prefix = f"family.{family}.specialization.failure_kinds."
    kinds = [(k[len(prefix) :], v) for k, v in c.counters.items() if k.startswith(prefix) and v]
    return tuple(sorted(kinds, key=lambda kv: (-kv[1], kv[0])))


def family_row(c: Collection, family: str, executions: Number, total: Number) -> FamilyRow:
    share = _ratio(executions, total)
    if not specializes(c, family):
        return FamilyRow(family, executions, share, specializes=False)
    spec = f"family.{family}.specialization."
    whole = spec_total(c, family)
    return FamilyRow(
        family,
        executions,
        share,
        specializes=True,
        hit=_ratio(c.get(spec + "hit", 0), whole),
        miss=_ratio(c.get(spec + "miss", 0), whole),
        deferred=c.get(spec + "deferred", 0),
        deopt=c.get(spec + "deopt", 0),
        failures=failures(c, family),
    )


def families(c: Collection, limit: int) -> tuple[list[FamilyRow], int]:
    """The ``limit`` most executed families (most first), and how many families there are."""
    executed = [
        (k.split(".")[1], v)
        for k, v in c.counters.items()
        if k.startswith("family.") and k.endswith(".execution_count")
    ]
    executed.sort(key=lambda kv: (-kv[1], kv[0]))
    total = instructions(c)
    return [family_row(c, fam, value, total) for fam, value in executed[:limit]], len(executed)


def header(c: Collection) -> list[tuple[str, str]]:
    """(words, value) of the totals the dumps have: instructions, calls (``Calls to …`` lines, as
    summarize_stats.py totals them), objects allocated (freelist included), GC collections."""
    out: list[tuple[str, str]] = []
    counters = c.counters
    if any(k.startswith("opcode.") and k.endswith(".execution_count") for k in counters):
        out.append(("instructions", count(instructions(c))))
    calls = sum(v for k, v in counters.items() if k.startswith("calls.to_"))
    if any(k.startswith("calls.to_") for k in counters):
        inlined = _ratio(c.get("calls.to_python_functions_inlined", 0), calls)
        out.append(("calls", count(calls) + (f" ({percent(inlined)} inlined)" if inlined is not None else "")))
    if "objects.allocations" in counters or "objects.allocations_from_freelist" in counters:
        freelist = c.get("objects.allocations_from_freelist", 0)
        allocated = c.get("objects.allocations", 0) + freelist
        share = _ratio(freelist, allocated)
        out.append(("objects allocated", count(allocated) + (f" ({percent(share)} from freelists)" if share else "")))
    gc = [v for k, v in counters.items() if k.startswith("gc.") and k.endswith(".collections")]
    if gc:
        out.append(("GC collections", count(sum(gc))))
    return out


def source_words(c: Collection) -> str:
    """Where the numbers come from: ``v3.13.5, Python 3.13.5, 2 files`` or, without a build,
    ``3.13+-shaped dump (opcodes named by the dump), 2 files``."""
    meta = c.metadata
    parts = [str(meta["revision"])] if meta.get("revision") else []
    if meta.get("python_version") not in (None, "", "?"):
        parts.append(f"Python {meta['python_version']}")
    if not parts:
        shape = f"{meta['generation']}-shaped dump" if meta.get("generation") else "dumps"
        naming = NAMING_WORDS.get(str(meta.get("naming")))
        parts.append(f"{shape} ({naming})" if naming else shape)
    if "nfiles" in meta:
        parts.append(f"{meta['nfiles']} file" + ("" if meta["nfiles"] == 1 else "s"))
    return ", ".join(parts)
