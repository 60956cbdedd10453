"""A collection at a glance: what a CPython core developer reads pystats for.

A header (instructions, calls, objects allocated, GC collections) and the busiest opcode families,
each with its executions, its share of all instructions and how well it specializes (hit %, miss %,
deferred, deopt); then, for those of them that failed to specialize, their top failure kinds (a
table of its own, so that at 100 columns no kind is cut in pieces); a line on what tier 2 did when
the dumps have optimizer lines. The terminal (:func:`to_rich`) and Markdown (:func:`to_markdown`)
show the same tables with the same columns (``COLUMNS``, ``FAILURE_COLUMNS``); the numbers are
computed once (:mod:`pystats_harness.stats.family_rows`).

What the dumps cannot say without their build is said in one line: opcodes that are numbers (a
3.11/3.12 dump read without ``--rev``: no families, the line in place of the tables) and failure
kinds that are numbers (``kind_N``: a 3.13+ dump read without ``--rev``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from pystats_harness.stats.collection import Collection, Number
from pystats_harness.stats.family_rows import FamilyRow, count, families, header, percent, source_words

LIMIT = 30
#: What a cell holds where a family cannot specialize (and for a ratio of nothing).
NONE = "–"
#: Failure kinds shown per family.
TOP_FAILURES = 3
#: How the summary says what ``--rev`` would add.
REV_NAMES = "--rev REV (the revision that made the dumps) names them"

#: The optimizer's totals a summary line names (counter, words).
TIER2_TOTALS = (
    ("optimizer.attempts", "optimization attempts"),
    ("optimizer.traces_created", "traces created"),
    ("optimizer.traces_executed", "traces executed"),
    ("optimizer.uops_executed", "uops executed"),
)


def tier2_line(c: Collection) -> str | None:
    """``Tier 2: N optimization attempts, ...``; None when the dumps had no optimizer lines."""
    if "optimizer.attempts" not in c.counters:
        return None
    return "Tier 2: " + ", ".join(f"{count(c.get(name, 0))} {words}" for name, words in TIER2_TOTALS)


def unnamed_line(c: Collection) -> str | None:
    """The one line that says a numbered dump's opcodes are unnamed and how to name them (else None)."""
    if c.metadata.get("naming") != "numeric-unnamed":
        return None
    return f"opcodes are numbers, no families: {REV_NAMES}"


def kinds_line(c: Collection, rows: Sequence[FamilyRow]) -> str | None:
    """The one line that says failure kinds shown are numbers (a named dump read without its build)."""
    if c.metadata.get("naming") != "dump-names" or not any(row.failures for row in rows):
        return None
    return f"failure kinds are numbers (kind_N): {REV_NAMES}"


def _count(value: Number | None) -> str:
    return NONE if value is None else count(value)


def _specialized(cell: Callable[[FamilyRow], str]) -> Callable[[FamilyRow], str]:
    """``cell`` for a family that specializes; ``–`` for one that cannot."""
    return lambda row: cell(row) if row.specializes else NONE


def _failures(row: FamilyRow) -> str:
    """``add_other 7, and_int 3``: the top failure kinds, as the build names them (else ``kind_12``)."""
    return ", ".join(f"{kind} {count(n)}" for kind, n in row.failures[:TOP_FAILURES])


@dataclass(frozen=True)
class Column:
    """One column of a summary table, as the terminal and Markdown both show it."""

    title: str
    cell: Callable[[FamilyRow], str]
    numeric: bool = True


FAMILY = Column("Family", lambda row: row.family, numeric=False)
#: The family table's columns (terminal and Markdown alike); hit % and miss % as summarize_stats.py
#: computes them (:func:`family_rows.spec_total`).
COLUMNS: tuple[Column, ...] = (
    FAMILY,
    Column("Executions", lambda row: count(row.executions)),
    Column("Share", lambda row: percent(row.share)),
    Column("Hit", _specialized(lambda row: percent(row.hit))),
    Column("Miss", _specialized(lambda row: percent(row.miss))),
    Column("Deferred", _specialized(lambda row: _count(row.deferred))),
    Column("Deopt", _specialized(lambda row: _count(row.deopt))),
)
#: The failure table's columns: the same families, in the same order, that failed to specialize.
#: A table of its own so that kinds are never cut into pieces at 100 columns.
FAILURE_COLUMNS: tuple[Column, ...] = (
    FAMILY,
    Column("Top failure kinds", _failures, numeric=False),
)


def title(c: Collection, shown: int, total: int) -> str:
    """``Top 30 of 52 opcode families by executions`` (``, per loop`` for a per-loop collection)."""
    per_loop = ", per loop" if c.metadata.get("per_loop") else ""
    return f"Top {shown} of {total} opcode families by executions{per_loop}"


def header_line(c: Collection) -> str:
    """``instructions 1,234 · calls 56 (40.0% inlined) · objects allocated 789 · GC collections 3``."""
    return " · ".join(f"{words} {value}" for words, value in header(c))


def failure_title(c: Collection) -> str:
    return f"Specialization failures, top {TOP_FAILURES} kinds" + (", per loop" if c.metadata.get("per_loop") else "")


def _markdown_table(columns: Sequence[Column], rows: Sequence[FamilyRow]) -> list[str]:
    lines = ["| " + " | ".join(col.title for col in columns) + " |"]
    lines.append("|" + "|".join("---:" if col.numeric else ":---" for col in columns) + "|")
    for row in rows:
        cells = [col.cell(row) for col in columns]
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def to_markdown(c: Collection, limit: int = LIMIT) -> str:
    """The summary as Markdown (``--markdown``, and each collect benchmark's ``summary.md``)."""
    rows, total = families(c, limit)
    failed = [row for row in rows if row.failures]
    sha = str(c.metadata.get("sha", ""))[:12]
    lines = [f"**pystats** {source_words(c)}" + (f" ({sha})" if sha else ""), ""]
    lines += [header_line(c), ""] if header(c) else []
    unnamed = unnamed_line(c)
    if unnamed:
        lines.append(f"**{unnamed}**")
    else:
        lines += [title(c, len(rows), total) + ":", "", *_markdown_table(COLUMNS, rows)]
    if failed:
        lines += ["", failure_title(c) + ":", "", *_markdown_table(FAILURE_COLUMNS, failed)]
    kinds = kinds_line(c, rows)
    if kinds:
        lines += ["", f"**{kinds}**"]
    tier2 = tier2_line(c)
    return "\n".join(lines + (["", tier2] if tier2 else [])) + "\n"


def _rich_table(columns: Sequence[Column], rows: Sequence[FamilyRow], title: str) -> RenderableType:
    """The table under its title (a line of its own: a table's title is padded to the table's width)."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, min_width=len(title))
    for col in columns:
        # names are never cut (they are what one searches for); only failure kinds wrap, between kinds
        table.add_column(col.title, justify="right" if col.numeric else "left", no_wrap=col is not columns[-1])
    for row in rows:
        table.add_row(*(col.cell(row) for col in columns))
    return Group(Text(title, style="table.title"), table)


def to_rich(c: Collection, limit: int = LIMIT) -> RenderableType:
    """The summary for the terminal: where the numbers come from, the header, the family table and
    the failure table (or, for opcode numbers, why there are none)."""
    rows, total = families(c, limit)
    failed = [row for row in rows if row.failures]
    parts: list[RenderableType] = [Text(source_words(c), style="bold")]
    lines = header(c)
    width = max((len(words) for words, _ in lines), default=0)
    parts += [Text(f"{words:<{width}}  {value}") for words, value in lines]  # no cell padding after the value
    unnamed = unnamed_line(c)
    if unnamed:
        parts.append(Text(unnamed, style="bold yellow"))
    else:
        parts.append(_rich_table(COLUMNS, rows, title(c, len(rows), total)))
    if failed:
        parts.append(_rich_table(FAILURE_COLUMNS, failed, failure_title(c)))
    kinds = kinds_line(c, rows)
    if kinds:
        parts.append(Text(kinds, style="yellow"))
    tier2 = tier2_line(c)
    if tier2:
        parts.append(Text(tier2))
    return Group(*parts)
