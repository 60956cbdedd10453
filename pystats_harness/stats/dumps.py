"""Parse the text that a ``--enable-pystats`` interpreter writes at exit.

Every generation (3.11 numeric keys, 3.12 numeric keys plus call/refcount lines, 3.13+ named keys plus
GC, rare-event, optimizer and free-threading lines) uses one line grammar::

    [ \t]* KEY [ \t]* ":" [ \t]* DIGITS [ \t\r]*       (KEY: no ':' or newline; not empty;
                                                     DIGITS: a uint64, below 2**64)

so both ``key : N`` and ``key: N`` parse, indented or not.  Blank lines (only spaces, tabs, CR) are
ignored.  Raw keys are summed first (as bytes, on a C-speed path: one ``split`` per file, and files
with the same key sequence are added column-wise); each distinct key is then classified once.

Every counter is a C ``uint64_t`` printed unsigned, and CPython decrements some (``STAT_DEC``): one
that went below zero prints as ``2**64 - k``.  A value of at least ``2**63`` is read as what it is,
``value - 2**64`` (per value, before summing, so sums are exact Python ints), and the keys that
were read so are counted per dump file in ``DumpResult.negative``.

Well-formed lines this module does not recognise become ``other`` stats and are listed in
``DumpResult.unknown``.  Malformed lines raise :class:`StatsParseError` naming the file and line, or,
with ``lenient=True``, are skipped and recorded as a :class:`ParseWarning`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.errors import StatsParseError
from pystats_harness.stats.keys import Generation, Stat, classify, classify_key, generation

# Printed only by _Py_PrintSpecializationStats(0), which no caller uses; tolerated with a warning.
_HEADERS = frozenset({b"Specialization stats:"})
_NOT_COLON_OR_NL = bytes(b for b in range(256) if b not in b":\n")
_MAX_SKELETONS = 64  # distinct key sequences whose values are summed column-wise
_SKELETONS_PER_LENGTH = 4
_BATCH = 32
#: A dump value at or above this is a uint64 that wrapped below zero.
WRAPPED = 2**63
UINT64 = 2**64


@dataclass(frozen=True, slots=True)
class ParseWarning:
    """A line that was skipped (``lenient=True``) or tolerated (a header line)."""

    source: str
    lineno: int
    line: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.lineno}: {self.reason}: {self.line[:120]!r}"


@dataclass(frozen=True)
class DumpResult:
    """Summed raw keys of one or more dumps, with everything that was not a counter."""

    sources: tuple[str, ...]
    raw: Mapping[str, int]
    counted_lines: int
    warnings: tuple[ParseWarning, ...] = ()
    #: raw key -> number of dump files in which its value was below zero (printed as 2**64 - k)
    negative: Mapping[str, int] = field(default_factory=dict)

    @property
    def stats(self) -> tuple[Stat, ...]:
        return tuple(classify(key, value) for key, value in self.raw.items())

    @property
    def generation(self) -> Generation | None:
        """3.11 / 3.12 (opcode numbers) or 3.13+ (names); None without opcode lines (:func:`keys.generation`)."""
        return generation(self.raw)

    @property
    def unknown(self) -> tuple[str, ...]:
        """Well-formed keys that no known line format matched (kept as ``other`` stats)."""
        return tuple(sorted(key for key in self.raw if classify_key(key)[0] == "other"))


def _split_line(line: bytes) -> tuple[bytes, int] | None:
    """The reference grammar for one line: ``(raw key, value)``, or None if malformed."""
    key, sep, value = line.partition(b":")
    key, value = key.strip(b" \t"), value.strip(b" \t\r")
    if not sep or not key or not value.isdigit():
        return None
    try:
        number = int(value)
    except ValueError:  # more digits than int() converts
        return None
    return (key, number) if number < UINT64 else None


def signed(values: list[int]) -> list[int] | None:
    """``values`` with every wrapped uint64 read as ``value - 2**64`` (the same list when none is);
    None if one is not a uint64 at all (2**64 or more: a malformed line)."""
    if not values or max(values) < WRAPPED:
        return values
    if max(values) >= UINT64:
        return None
    return [v - UINT64 if v >= WRAPPED else v for v in values]


def _split_fast(data: bytes) -> tuple[list[bytes], list[int], bool] | None:
    """Keys (unstripped), signed values and whether one is negative, if *every* line has exactly one
    ':' and a digits-only value below 2**64."""
    if not data.endswith(b"\n"):
        data += b"\n"
    delimiters = data.translate(None, _NOT_COLON_OR_NL)  # b":\n" per line, or a malformed line
    if len(delimiters) & 1 or delimiters != b":\n" * (len(delimiters) >> 1):
        return None
    parts = data.replace(b":", b"\n").split(b"\n")
    values = parts[1::2]
    if not b"".join(values).translate(None, b" \t\r").isdigit():
        return None
    try:
        unsigned = list(map(int, values))
    except ValueError:
        return None
    numbers = signed(unsigned)
    return None if numbers is None else (parts[0:-1:2], numbers, numbers is not unsigned)


class _Accumulator:
    """Sums raw keys over many dumps; see the module docstring for the fast paths."""

    def __init__(self, lenient: bool) -> None:
        self.lenient = lenient
        self.totals: dict[bytes, int] = {}
        # len(keys) -> list of [keys, column sums, pending value lists]
        self.skeletons: dict[int, list[list[Any]]] = {}
        self.nskeletons = 0
        self.counted = 0
        self.warnings: list[ParseWarning] = []
        self.negative: dict[bytes, int] = {}  # key -> dump files in which it was negative

    def add(self, data: bytes, source: str) -> None:
        fast = _split_fast(data)
        if fast is None or not self._add_fast(fast[0], fast[1]):
            self._add_slow(data, source)
        elif fast[2]:
            self._note_negative(fast[0], fast[1])

    def _note_negative(self, keys: Iterable[bytes], values: Iterable[int]) -> None:
        negative = self.negative
        for key in {k.strip(b" \t") for k, v in zip(keys, values, strict=True) if v < 0}:
            negative[key] = negative.get(key, 0) + 1

    def _add_fast(self, keys: list[bytes], values: list[int]) -> bool:
        group = self.skeletons.setdefault(len(keys), [])
        for skeleton in group:
            if skeleton[0] == keys:
                pending = skeleton[2]
                pending.append(values)
                if len(pending) >= _BATCH:
                    skeleton[1] = list(map(sum, zip(skeleton[1], *pending, strict=True)))
                    pending.clear()
                self.counted += len(keys)
                return True
        if not all(key.strip(b" \t") for key in keys):
            return False  # an empty key: let the slow path name the line
        if self.nskeletons < _MAX_SKELETONS and len(group) < _SKELETONS_PER_LENGTH:
            group.append([keys, values, []])
            self.nskeletons += 1
        else:
            totals, get = self.totals, self.totals.get
            for key, value in zip(keys, values, strict=True):
                totals[key] = get(key, 0) + value
        self.counted += len(keys)
        return True

    def _add_slow(self, data: bytes, source: str) -> None:
        totals = self.totals
        negative: list[tuple[bytes, int]] = []
        for lineno, line in enumerate(data.split(b"\n"), start=1):
            if not line.strip(b" \t\r"):
                continue
            parsed = _split_line(line)
            if parsed is not None:
                key, value = parsed
                if value >= WRAPPED:
                    value -= UINT64
                    negative.append((key, value))
                totals[key] = totals.get(key, 0) + value
                self.counted += 1
                continue
            text = line.decode("utf-8", "surrogateescape")
            if line.strip() in _HEADERS:
                self.warnings.append(ParseWarning(source, lineno, text, "header line ignored"))
            elif self.lenient:
                self.warnings.append(ParseWarning(source, lineno, text, "malformed line skipped"))
            else:
                raise StatsParseError(
                    f"{source}:{lineno}: malformed stats line {text[:80]!r} (expected '<key>: <integer below "
                    "2**64>'); `invoke stats DIR --lenient` skips such lines"
                )
        self._note_negative((k for k, _ in negative), (v for _, v in negative))

    def result(self, sources: tuple[str, ...]) -> DumpResult:
        totals = self.totals
        for group in self.skeletons.values():
            for keys, column_sums, pending in group:
                for key, value in zip(keys, map(sum, zip(column_sums, *pending, strict=True)), strict=True):
                    totals[key] = totals.get(key, 0) + value
        raw: dict[str, int] = {}
        for key, value in totals.items():
            name = _name(key)
            raw[name] = raw.get(name, 0) + value
        negative: dict[str, int] = {}
        for key, files in self.negative.items():
            negative[_name(key)] = negative.get(_name(key), 0) + files
        return DumpResult(sources, raw, self.counted, tuple(self.warnings), dict(sorted(negative.items())))


def _name(key: bytes) -> str:
    return key.strip(b" \t").decode("utf-8", "surrogateescape")


def parse_text(text: str | bytes, source: str = "<text>", *, lenient: bool = False) -> DumpResult:
    """Parse one dump (file contents or a captured stderr stream; repeated keys are summed)."""
    acc = _Accumulator(lenient)
    acc.add(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"), source)
    return acc.result((source,))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise StatsParseError(f"{path}: cannot read stats dump ({exc.strerror}); check the path") from exc


def parse_file(path: Path, *, lenient: bool = False) -> DumpResult:
    return parse_text(_read(Path(path)), str(path), lenient=lenient)


def _parse_chunk(paths: list[str], lenient: bool) -> DumpResult:
    acc = _Accumulator(lenient)
    for path in paths:
        acc.add(_read(Path(path)), path)
    return acc.result(tuple(paths))


#: Below this many files a second process costs more than it saves.
PARALLEL_MIN_FILES = 256


def parse_files(paths: Iterable[Path], *, lenient: bool = False, workers: int | None = None) -> DumpResult:
    """Sum the raw keys of many dump files (the fast path used for aggregation).

    Many files are split between ``workers`` processes (default: one per core), each summing its
    share; the partial sums are added here.  Errors and warnings are the same as sequentially.
    """
    sources = [str(p) for p in paths]
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers < 2 or len(sources) < PARALLEL_MIN_FILES:
        return _parse_chunk(sources, lenient)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(sources) // workers)
    chunks = [sources[i : i + size] for i in range(0, len(sources), size)]
    with ProcessPoolExecutor(len(chunks), mp_context=multiprocessing.get_context("fork")) as pool:
        parts = list(pool.map(_parse_chunk, chunks, [lenient] * len(chunks)))
    total: dict[str, int] = {}
    negative: dict[str, int] = {}
    for part in parts:
        for into, values in ((total, part.raw), (negative, part.negative)):
            get = into.get
            for key, value in values.items():
                into[key] = get(key, 0) + value
    counted = sum(part.counted_lines for part in parts)
    warnings = tuple(w for part in parts for w in part.warnings)
    return DumpResult(tuple(sources), total, counted, warnings, dict(sorted(negative.items())))
