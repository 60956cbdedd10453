"""The stats part of an upstream commit's diff: which of its lines concern pystats, and a patch made of
those lines alone (pure: text in, text out; :mod:`pystats_harness.builder.repairs` reads the mirror).

A changed line concerns stats when it names stats code (``Py_STATS``, ``_Py_stats``, ``GC_STAT_ADD``, a
``*Stats`` struct, … : ``configs/repairs.toml [stats] tokens``), when it lies in a preprocessor block
conditional on ``Py_STATS`` (in the file before the change), or when its whole file is stats
(``Include/cpython/pystats.h``). A blank line goes with the lines around it.

The selection keeps every stats line of a hunk and nothing else: a removed line that is not stats
stays as context, an added one is left out. So a repair never changes a line of non-stats code; a hunk
with no stats line is not taken at all. Renames, new, deleted and binary files are never taken.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Reader = Callable[[str], "str | None"]  # path -> the file's text before the change (None: absent)

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_IF = re.compile(r"^\s*#\s*if(n?def)?\b(.*)$")
_ELSE = re.compile(r"^\s*#\s*(else|elif)\b")
_ENDIF = re.compile(r"^\s*#\s*endif\b")


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str  # what follows the second @@ (git's function context)
    lines: tuple[str, ...]  # ' ', '-', '+' or '\\' first


@dataclass(frozen=True)
class FileDiff:
    path: str
    hunks: tuple[Hunk, ...]
    plain: bool  # a change of a file's text: no rename, creation, deletion, mode change or binary
    pre_blob: str = ""  # the ``index`` line's blob before the change


@dataclass(frozen=True)
class StatsRules:
    """What counts as stats code (``configs/repairs.toml [stats]``)."""

    tokens: tuple[str, ...]  # regexes: a line matching one names stats code
    files: tuple[str, ...]  # paths all of whose lines are stats
    region: str = r"Py_STATS"  # a preprocessor condition naming this opens a stats block

    def names_stats(self, text: str) -> bool:
        return any(re.search(token, text) for token in self.tokens)


@dataclass(frozen=True)
class Taken:
    """What the selection took from one file."""

    path: str
    hunks: int  # hunks with at least one stats line
    of_hunks: int
    lines: int  # changed lines taken
    left: int  # changed lines left out (not stats)


@dataclass(frozen=True)
class Piece:
    """One selected hunk with its file's header: the unit that is checked against a revision."""

    path: str
    header: str
    hunk: str

    @property
    def text(self) -> str:
        return self.header + self.hunk


def compose(pieces: Sequence[Piece]) -> str:
    """One patch of ``pieces`` (in order; a file's header once for its hunks)."""
    out, last = [], None
    for piece in pieces:
        if piece.path != last:
            out.append(piece.header)
            last = piece.path
        out.append(piece.hunk)
    return "".join(out)


@dataclass(frozen=True)
class Selection:
    pieces: tuple[Piece, ...]
    files: tuple[Taken, ...]  # files something was taken from
    removed: tuple[str, ...] = ()  # the removed lines taken (what a failing build may have tripped on)

    @property
    def text(self) -> str:
        return compose(self.pieces)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(t.path for t in self.files)

    @property
    def empty(self) -> bool:
        return not self.files


def parse(diff: str) -> tuple[FileDiff, ...]:
    """A ``git diff`` (or ``git show``) text into its files and hunks."""
    files: list[FileDiff] = []
    path, plain, pre = "", True, ""
    hunks: list[Hunk] = []
    current: tuple[re.Match[str], list[str]] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            hunks.append(_hunk(*current))
            current = None
        if path:
            files.append(FileDiff(path, tuple(hunks), plain, pre))

    for line in diff.splitlines():
        if line.startswith("diff --git "):
            close()
            path, plain, pre, hunks = line.rsplit(" b/", 1)[-1], True, "", []
        elif current is None and line.startswith(("new file", "deleted file", "rename ", "old mode", "Binary ")):
            plain = False
        elif current is None and line.startswith("index "):
            pre = line.split()[1].split("..")[0]
        elif current is None and line.startswith(("--- ", "+++ ", "similarity ", "copy ")):
            plain = plain and not line.startswith(("similarity ", "copy "))
        elif m := _HUNK.match(line):
            if current is not None:
                hunks.append(_hunk(*current))
            current = (m, [])
        elif current is not None and line[:1] in (" ", "-", "+", "\\"):
            current[1].append(line)
        elif current is not None and line == "":
            current[1].append(" ")  # a blank context line some tools write without its space
    close()
    return tuple(files)


def _hunk(m: re.Match[str], lines: list[str]) -> Hunk:
    count = lambda g: 1 if g is None else int(g)  # noqa: E731
    return Hunk(int(m[1]), count(m[2]), int(m[3]), count(m[4]), m[5], tuple(lines))


def stats_regions(text: str, rules: StatsRules) -> list[bool]:
    """For each line (1-based, index 0 unused): whether it is in, or opens or closes, a preprocessor block
    whose condition names ``Py_STATS`` (either branch: the no-stats stubs of the macros are stats code too)."""
    marks: list[bool] = [False]
    stack: list[bool] = []
    for line in text.splitlines():
        if m := _IF.match(line):
            stack.append(bool(re.search(rules.region, m[2])) or (bool(stack) and stack[-1]))
            marks.append(stack[-1])
        elif _ENDIF.match(line) and stack:
            marks.append(stack.pop())
        else:
            if _ELSE.match(line) and stack and re.search(rules.region, line):
                stack[-1] = True
            marks.append(bool(stack) and stack[-1])
    return marks


def _classify(path: str, hunk: Hunk, rules: StatsRules, regions: Sequence[bool]) -> list[bool | None]:
    """Per line of the hunk: True stats, False not, None blank (goes with the hunk)."""
    whole = path in rules.files
    old = hunk.old_start
    kinds: list[bool | None] = []
    for line in hunk.lines:
        tag, text = line[:1], line[1:]
        if tag in (" ", "-"):
            here = 0 < old < len(regions) and regions[old]
            old += 1
        else:
            here = 0 < old - 1 < len(regions) and regions[old - 1]
        if tag not in ("-", "+") or not text.strip():
            kinds.append(None)
        else:
            kinds.append(whole or here or rules.names_stats(text))
    return kinds


def _select_hunk(hunk: Hunk, kinds: list[bool | None]) -> tuple[list[str], int, int]:
    """The hunk's lines with only stats changes; and how many changed lines were taken and left."""
    any_stats = any(k is True for k in kinds)
    out, taken, left = [], 0, 0
    for line, kind in zip(hunk.lines, kinds, strict=True):
        tag = line[:1]
        keep = kind is True or (kind is None and any_stats)
        if tag == "-":
            out.append(line if keep else " " + line[1:])
        elif tag == "+":
            if keep:
                out.append(line)
        elif tag == "\\":
            if out and out[-1][:1] in ("-", "+"):
                out.append(line)
        else:
            out.append(line)
        if tag in ("-", "+") and line[1:].strip():
            taken, left = (taken + 1, left) if keep else (taken, left + 1)
    return out, taken, left


def select(diff: str, eligible: Callable[[str], bool], read_old: Reader, rules: StatsRules) -> Selection:
    """The stats lines of ``diff`` in the files ``eligible`` accepts, as a patch of their own.

    ``read_old`` gives a file's text before the change (for its ``#ifdef Py_STATS`` blocks)."""
    pieces: list[Piece] = []
    taken_files: list[Taken] = []
    removed: list[str] = []
    for fd in parse(diff):
        if not fd.plain or not fd.hunks or not eligible(fd.path):
            continue
        regions = stats_regions(read_old(fd.path) or "", rules)
        index = f"index {fd.pre_blob}..{fd.pre_blob}\n" if fd.pre_blob else ""
        header = f"diff --git a/{fd.path} b/{fd.path}\n{index}--- a/{fd.path}\n+++ b/{fd.path}\n"
        offset, hunks, lines, left = 0, 0, 0, 0
        for hunk in fd.hunks:
            kinds = _classify(fd.path, hunk, rules, regions)
            body, took, dropped = _select_hunk(hunk, kinds)
            left += dropped
            if not any(line[:1] in ("-", "+") for line in body):
                continue
            old_count = sum(line[:1] in (" ", "-") for line in body)
            new_count = sum(line[:1] in (" ", "+") for line in body)
            new_start = hunk.old_start + offset if old_count else hunk.old_start + offset + 1
            head = f"@@ -{hunk.old_start},{old_count} +{new_start},{new_count} @@{hunk.section}"
            pieces.append(Piece(fd.path, header, "\n".join([head, *body]) + "\n"))
            removed.extend(line[1:] for line in body if line[:1] == "-")
            offset += new_count - old_count
            hunks, lines = hunks + 1, lines + took
        if hunks:
            taken_files.append(Taken(fd.path, hunks, len(fd.hunks), lines, left))
    return Selection(tuple(pieces), tuple(taken_files), tuple(removed))
