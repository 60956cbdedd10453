"""A *collection*: the named, summed counters of one set of stats dumps, as one JSON document.

``{"schema": "pystats-harness/1", "metadata": {...}, "counters": {dotted-name: number}, "unknown": [...]}``

Dotted names are stable across CPython versions (3.11/3.12 opcode numbers are named with the build's
own ``names.json``): ``opcode.LOAD_ATTR.execution_count``, ``opcode.LOAD_ATTR.specialization.hit``,
``opcode.LOAD_ATTR.specialization.failure_kinds.<kind>``, ``pair.LOAD_FAST.LOAD_ATTR``,
``calls.<name>``, ``calls.via_pyeval_evalframe.<kind>``, ``objects.<name>``, ``gc.<gen>.<what>``,
``rare_events.<name>``, ``optimizer.<name>``, ``optimizer.histogram.<name>.<bucket>``,
``optimizer.unsupported_opcode.<NAME>``, ``optimizer.error_in_opcode.<_NAME>``,
``uops.<_NAME>.execution_count`` / ``.specialization.miss``, ``uop_pair.<_A>.<_B>`` (tier-2 lines:
:mod:`pystats_harness.stats.tier2`), ``ft.<name>``, ``other.<raw key>``, and the derived
``family.<BASE>.execution_count`` / ``family.<BASE>.specialization.*``.

Counts are exact ints (a value that wrapped below zero in a dump is negative, and
``metadata["negative_counters"]`` names each such counter with the number of dump files in which it
was); only a per-loop collection (:func:`per_loop`) holds floats, where a division is not exact.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from pystats_harness.errors import ConfigError, StatsParseError
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.stats.dumps import DumpResult, parse_files
from pystats_harness.stats.exact import display
from pystats_harness.stats.families import dump_tables
from pystats_harness.stats.keys import Stat, classify
from pystats_harness.stats.names import NameTables

SCHEMA = "pystats-harness/1"
MAX_WARNINGS = 50

Number = int | float


@dataclass(frozen=True)
class Collection:
    """Named counters plus where they came from."""

    metadata: Mapping[str, Any]
    counters: Mapping[str, Number]
    unknown: tuple[str, ...] = ()
    schema: str = field(default=SCHEMA)

    def get(self, name: str, default: Number = 0) -> Number:
        return self.counters.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "metadata": dict(self.metadata),
            "counters": dict(sorted(self.counters.items())),
            "unknown": list(self.unknown),
        }

    @classmethod
    def from_dict(cls, doc: Any, source: str = "<json>") -> Collection:
        if not isinstance(doc, Mapping) or doc.get("schema") != SCHEMA:
            got = doc.get("schema") if isinstance(doc, Mapping) else type(doc).__name__
            raise StatsParseError(f"{source}: not a stats collection of schema {SCHEMA!r} (got {got!r})")
        counters = doc.get("counters")
        if not isinstance(counters, Mapping) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in counters.values()
        ):
            raise StatsParseError(f"{source}: 'counters' must map names to numbers")
        return cls(dict(doc.get("metadata") or {}), dict(counters), tuple(doc.get("unknown") or ()))


N = TypeVar("N", int, float)


def _add(out: dict[str, N], name: str, value: N) -> None:
    out[name] = out.get(name, 0) + value


def counter_name(stat: Stat, names: NameTables | None) -> str | None:
    """The dotted name of one classified dump line (None for a ``specializable`` marker line)."""
    op = names.opname if names else (lambda n: n)
    kind, parts = stat.kind, stat.parts
    if kind == "opcode":
        return f"opcode.{op(parts[0])}.{parts[1]}"
    if kind == "specialization":
        return f"opcode.{op(parts[0])}.specialization.{parts[1]}"
    if kind == "failure_kind":
        name = op(parts[0])
        fail = names.failure_kind(parts[1], name) if names else f"kind_{parts[1]}"
        return f"opcode.{name}.specialization.failure_kinds.{fail}"
    if kind == "pair":
        return f"pair.{op(parts[0])}.{op(parts[1])}"
    if kind == "specializable":
        return None
    if kind == "call" and parts[0] == "via_pyeval_evalframe":
        what = names.eval_call_kind(parts[1]) if names else f"kind_{parts[1]}"
        return f"calls.via_pyeval_evalframe.{what}"
    if kind == "uop":
        return f"uops.{parts[0]}.{parts[1]}"
    if kind == "other":
        return f"other.{stat.raw}"
    prefix = {"call": "calls", "object": "objects", "rare_event": "rare_events", "free_threading": "ft"}.get(kind, kind)
    return ".".join((prefix, *parts))


def name_counters(raw: Mapping[str, int], names: NameTables | None) -> tuple[dict[str, int], list[str], list[str]]:
    """Name summed raw keys; returns ``(counters, specializable, unknown)`` (family totals included)."""
    counters: dict[str, int] = {}
    specializable: set[str] = set()
    unknown: list[str] = []
    for key, value in raw.items():
        stat = classify(key, value)
        name = counter_name(stat, names)
        if name is None:
            specializable.add(names.opname(stat.parts[0]) if names else stat.parts[0])
            continue
        if stat.kind == "other":
            unknown.append(key)
        _add(counters, name, value)
    if names is not None:
        counters.update(family_totals(counters, names))
    return counters, sorted(specializable), sorted(unknown)


def family_totals(counters: Mapping[str, int], names: NameTables) -> dict[str, int]:
    """``family.<BASE>.execution_count`` = base + all specialized forms.

    CPython records hit/success/failure/deferred/deopt and failure kinds on the family's base
    instruction (misses on both the specialized form and the base), so the family's specialization
    counters are the base's; a base without any is given the sum over its members.
    """
    out: dict[str, int] = {}
    spec: dict[str, dict[str, int]] = {}
    for name, value in counters.items():
        if not name.startswith("opcode."):
            continue
        _, opname, rest = name.split(".", 2)
        base = names.family(opname)
        if rest == "execution_count":
            _add(out, f"family.{base}.execution_count", value)
        elif rest.startswith("specialization."):
            per_op = spec.setdefault(f"family.{base}.{rest}", {})
            per_op[opname] = per_op.get(opname, 0) + value
    for fam_name, per_op in spec.items():
        base = fam_name.split(".", 2)[1]
        out[fam_name] = per_op[base] if base in per_op else sum(per_op.values())
    return out


def collect(
    paths: Sequence[Path], names: NameTables | None, metadata: Mapping[str, Any], lenient: bool = False
) -> Collection:
    """Read dump files (see :mod:`pystats_harness.stats.dumps`) into one named collection."""
    return from_dump(parse_files([Path(p) for p in paths], lenient=lenient), names, metadata)


def dump_files(directory: Path) -> list[Path]:
    """The dump files (``*.txt``) of a stats directory, or an error saying why there are none."""
    if not directory.is_dir():
        raise ConfigError(f"stats directory {directory} does not exist; pass a directory of pystats dump files")
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix == ".txt")
    if not files:
        raise StatsParseError(f"no dump files (*.txt) in {directory}; a run that collected nothing leaves none")
    return files


def collect_dir(
    directory: Path,
    names: NameTables | None,
    metadata: Mapping[str, Any],
    *,
    loops: float | None = None,
    lenient: bool = False,
) -> Collection:
    """Every dump file of ``directory`` as one collection (per loop when ``loops`` is given)."""
    collection = collect(dump_files(directory), names, metadata, lenient=lenient)
    return per_loop(collection, loops) if loops else collection


def from_dump(dump: DumpResult, names: NameTables | None, metadata: Mapping[str, Any]) -> Collection:
    """The named collection of ``dump``: opcode numbers named with the build's ``names``; a dump that
    names its opcodes (3.13+) gets its families from its own lines when ``names`` is None."""
    shape = dump.generation
    derived = dump_tables(dump.raw) if names is None and shape is not None and not shape.numbered else None
    counters, specializable, unknown = name_counters(dump.raw, names or derived)
    meta: dict[str, Any] = dict(metadata)
    meta.setdefault("files", [{"path": source, "origin": "dump"} for source in dump.sources])
    meta["nfiles"] = len(dump.sources)
    if names is not None:
        meta.setdefault("python_version", names.python_version)
    numeric = shape is not None and shape.numbered
    meta["naming"] = "names.json" if names else ("numeric-unnamed" if numeric else "dump-names")
    if shape is not None:
        meta["generation"] = shape.label
    meta["specializable"] = specializable
    if dump.negative:
        meta["negative_counters"] = negative_counters(dump.negative, names)
    if dump.warnings:
        meta["warnings"] = [str(w) for w in dump.warnings[:MAX_WARNINGS]]
        meta["warnings_total"] = len(dump.warnings)
    return Collection(meta, counters, tuple(unknown))


def negative_counters(negative: Mapping[str, int], names: NameTables | None) -> dict[str, int]:
    """``{counter: dump files}`` of the raw keys whose printed uint64 was read below zero."""
    out: dict[str, int] = {}
    for key, files in negative.items():
        name = counter_name(classify(key), names)
        if name is not None:
            _add(out, name, files)
    return dict(sorted(out.items()))


def aggregate(collections: Iterable[Collection]) -> Collection:
    """Sum collections of the same build (raises ConfigError for different revisions/schemas)."""
    items = list(collections)
    if not items:
        raise ConfigError("aggregate() needs at least one collection")
    shas = {str(c.metadata["sha"]) for c in items if c.metadata.get("sha")}
    if len(shas) > 1:
        raise ConfigError(f"cannot aggregate collections of different builds: {sorted(shas)}")
    counters: dict[str, Number] = {}
    unknown: set[str] = set()
    meta: dict[str, Any] = dict(items[0].metadata)
    meta["files"] = [f for c in items for f in c.metadata.get("files", [])]
    meta["nfiles"] = sum(int(c.metadata.get("nfiles", 0)) for c in items)
    meta["specializable"] = sorted({s for c in items for s in c.metadata.get("specializable", [])})
    negative: dict[str, int] = {}
    for c in items:
        for name, files in (c.metadata.get("negative_counters") or {}).items():
            _add(negative, name, int(files))
    if negative:
        meta["negative_counters"] = dict(sorted(negative.items()))
    else:
        meta.pop("negative_counters", None)
    loops = [c.metadata.get("loops") for c in items]
    if all(isinstance(n, (int, float)) for n in loops):
        meta["loops"] = sum(loops)
    else:
        meta.pop("loops", None)
    for c in items:
        if c.metadata.get("per_loop"):
            raise ConfigError("aggregate() sums raw counts; aggregate before calling per_loop()")
        for name, value in c.counters.items():
            _add(counters, name, value)
        unknown.update(c.unknown)
    return Collection(meta, counters, tuple(sorted(unknown)))


def per_loop(collection: Collection, loops: Number | None = None) -> Collection:
    """Divide every counter by the number of benchmark loops (default: ``metadata["loops"]``)."""
    n = collection.metadata.get("loops") if loops is None else loops
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n) or n <= 0:
        raise ConfigError(
            f"per_loop() needs a positive number of loops (got {n!r}); pass loops= or record metadata['loops']"
        )
    meta = dict(collection.metadata, loops=n, per_loop=True)
    return Collection(meta, {k: _divided(v, n) for k, v in collection.counters.items()}, collection.unknown)


def _divided(value: Number, n: Number) -> Number:
    """An int where the division is exact, else the nearest float (per-loop values are for reading)."""
    if isinstance(value, int) and isinstance(n, int):
        return display(Fraction(value, n))
    return value / n


def save(collection: Collection, path: Path) -> None:
    write_json_atomic(Path(path), collection.to_dict())


def load(path: Path) -> Collection:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise StatsParseError(f"{path}: cannot read collection ({exc.strerror})") from exc
    except json.JSONDecodeError as exc:
        raise StatsParseError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    return Collection.from_dict(doc, str(path))
