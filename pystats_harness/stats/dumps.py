"""Parse the text that a ``--enable-pystats`` interpreter writes at exit.

Every generation (3.11 numeric keys, 3.12 numeric keys plus call/refcount lines, 3.13+ named keys plus
GC, rare-event, optimizer and free-threading lines) uses one line grammar::

    [ \t]* KEY [ \t]* ":" [ \t]* DIGITS [ \t\r]*       (KEY: no ':' or newline; not empty)

so both ``key : N`` and ``key: N`` parse, indented or not.  Blank lines (only spaces, tabs, CR) are
ignored.  Raw keys are summed first (as bytes, on a C-speed path: one ``split`` per file, and files
with the same key sequence are added column-wise); each distinct key is then classified once.

Well-formed lines this module does not recognise become ``other`` stats and are listed in
``DumpResult.unknown``.  Malformed lines raise :class:`StatsParseError` naming the file and line, or,
with ``lenient=True``, are skipped and recorded as a :class:`ParseWarning`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.errors import StatsParseError
from pystats_harness.stats.keys import Stat, classify, classify_key

# Printed only by _Py_PrintSpecializationStats(0), which no caller uses; tolerated with a warning.
_HEADERS = frozenset({b"Specialization stats:"})
_NOT_COLON_OR_NL = bytes(b for b in range(256) if b not in b":\n")
_MAX_SKELETONS = 64  # distinct key sequences whose values are summed column-wise
_SKELETONS_PER_LENGTH = 4
_BATCH = 32


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

    @property
    def stats(self) -> tuple[Stat, ...]:
        return tuple(classify(key, value) for key, value in self.raw.items())

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
        return key, int(value)
    except ValueError:  # more digits than int() converts
        return None


def _split_fast(data: bytes) -> tuple[list[bytes], list[int]] | None:
    """Keys (unstripped) and values if *every* line has exactly one ':' and a digits-only value."""
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
        return parts[0:-1:2], list(map(int, values))
    except ValueError:
        return None


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

    def add(self, data: bytes, source: str) -> None:
        fast = _split_fast(data)
        if fast is None or not self._add_fast(*fast):
            self._add_slow(data, source)

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
        for lineno, line in enumerate(data.split(b"\n"), start=1):
            if not line.strip(b" \t\r"):
                continue
            parsed = _split_line(line)
            if parsed is not None:
                totals[parsed[0]] = totals.get(parsed[0], 0) + parsed[1]
                self.counted += 1
                continue
            text = line.decode("utf-8", "surrogateescape")
            if line.strip() in _HEADERS:
                self.warnings.append(ParseWarning(source, lineno, text, "header line ignored"))
            elif self.lenient:
                self.warnings.append(ParseWarning(source, lineno, text, "malformed line skipped"))
            else:
                raise StatsParseError(
                    f"{source}:{lineno}: malformed stats line {text[:80]!r} (expected '<key>: <integer>'); "
                    "pass lenient=True to skip such lines"
                )

    def result(self, sources: tuple[str, ...]) -> DumpResult:
        totals = self.totals
        for group in self.skeletons.values():
            for keys, column_sums, pending in group:
                for key, value in zip(keys, map(sum, zip(column_sums, *pending, strict=True)), strict=True):
                    totals[key] = totals.get(key, 0) + value
        raw: dict[str, int] = {}
        for key, value in totals.items():
            name = key.strip(b" \t").decode("utf-8", "surrogateescape")
            raw[name] = raw.get(name, 0) + value
        return DumpResult(sources, raw, self.counted, tuple(self.warnings))


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


def _parse_chunk(paths: list[str], lenient: bool) -> tuple[dict[str, int], int, tuple[ParseWarning, ...]]:
    acc = _Accumulator(lenient)
    for path in paths:
        acc.add(_read(Path(path)), path)
    result = acc.result(tuple(paths))
    return dict(result.raw), result.counted_lines, result.warnings


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
        raw, counted, warnings = _parse_chunk(sources, lenient)
        return DumpResult(tuple(sources), raw, counted, warnings)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(sources) // workers)
    chunks = [sources[i : i + size] for i in range(0, len(sources), size)]
    with ProcessPoolExecutor(len(chunks), mp_context=multiprocessing.get_context("fork")) as pool:
        parts = list(pool.map(_parse_chunk, chunks, [lenient] * len(chunks)))
    total: dict[str, int] = {}
    counted = 0
    all_warnings: list[ParseWarning] = []
    for part_raw, part_counted, part_warnings in parts:
        get = total.get
        for key, value in part_raw.items():
            total[key] = get(key, 0) + value
        counted += part_counted
        all_warnings += part_warnings
    return DumpResult(tuple(sources), total, counted, tuple(all_warnings))
