"""Compare two collections (base vs head) and render the result; cross-check against summarize_stats.py."""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pystats_harness.errors import ConfigError
from pystats_harness.stats.collection import Collection, Number

if TYPE_CHECKING:
    from rich.table import Table

COMPARE_SCHEMA = "pystats-harness/compare/1"
_META_KEYS = ("revision", "sha", "python_version", "nfiles", "loops", "per_loop")


class RowStatus(enum.StrEnum):
    NEW = "new"
    GONE = "gone"
    SAME = "same"
    CHANGED = "changed"


@dataclass(frozen=True)
class Row:
    name: str
    base: Number | None
    head: Number | None
    delta: Number
    ratio: float | None  # head / base; None when base is missing or 0

    @property
    def change(self) -> float:
        """Relative change: +inf for a new counter, -1.0 for a vanished one, 0.0 if both are 0."""
        base, head = self.base or 0, self.head or 0
        if base == 0:
            return 0.0 if head == 0 else math.inf
        return (head - base) / base

    @property
    def status(self) -> RowStatus:
        if not self.base and self.head:
            return RowStatus.NEW
        if self.base and not self.head:
            return RowStatus.GONE
        return RowStatus.SAME if self.delta == 0 else RowStatus.CHANGED


@dataclass(frozen=True)
class Comparison:
    base: Mapping[str, Any]
    head: Mapping[str, Any]
    rows: tuple[Row, ...]
    threshold: float
    family_view: bool
    hidden: int  # rows whose |change| is below the threshold


#: Counters of single instructions (tier 1 and tier-2 uops): the family view shows families and the
#: optimizer's totals (``optimizer.uops_executed``, traces, histograms) instead.
_SINGLE = ("opcode.", "uops.", "uop_pair.")


def _in_view(name: str, family_view: bool) -> bool:
    if family_view:
        return not name.startswith(_SINGLE)
    return not name.startswith("family.")


def compare(base: Collection, head: Collection, *, threshold: float = 0.0, family_view: bool = False) -> Comparison:
    """Rows sorted by size of change: largest |relative change| first (new counters first)."""
    if threshold < 0 or not math.isfinite(threshold):
        raise ConfigError(f"threshold must be a fraction >= 0, e.g. 0.05 for 5% (got {threshold!r})")
    if bool(base.metadata.get("per_loop")) != bool(head.metadata.get("per_loop")):
        raise ConfigError("cannot compare a per-loop collection with a raw one; normalise both or neither")
    unnamed = "numeric-unnamed" in (base.metadata.get("naming"), head.metadata.get("naming"))
    if unnamed and (base.metadata.get("sha") is None or base.metadata.get("sha") != head.metadata.get("sha")):
        raise ConfigError(
            "a collection has unnamed opcode numbers, which differ between builds; "
            "collect 3.11/3.12 dumps with that build's names.json"
        )
    rows: list[Row] = []
    hidden = 0
    for name in set(base.counters) | set(head.counters):
        if not _in_view(name, family_view):
            continue
        b, h = base.counters.get(name), head.counters.get(name)
        row = Row(name, b, h, (h or 0) - (b or 0), (h or 0) / b if b else None)
        if abs(row.change) < threshold or (threshold > 0 and row.delta == 0):
            hidden += 1
            continue
        rows.append(row)
    rows.sort(key=lambda r: (-abs(r.change), -abs(r.delta), r.name))
    return Comparison(_meta(base), _meta(head), tuple(rows), threshold, family_view, hidden)


def _meta(collection: Collection) -> dict[str, Any]:
    return {k: collection.metadata[k] for k in _META_KEYS if k in collection.metadata}


def _num(value: Number | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    sign = "+" if signed else ""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:{sign},.4g}" if abs(value) < 1000 else f"{value:{sign},.1f}"
    return f"{int(value):{sign},d}"


def _change(row: Row) -> str:
    if row.status in ("new", "gone"):
        return row.status
    return f"{row.change:+.1%}"


def _label(meta: Mapping[str, Any]) -> str:
    rev = meta.get("revision") or "?"
    sha = str(meta.get("sha") or "")[:12]
    extra = f" ({sha})" if sha and sha != rev else ""
    return f"{rev}{extra}, Python {meta.get('python_version', '?')}, {meta.get('nfiles', '?')} files"


def to_markdown(comparison: Comparison, limit: int = 50) -> str:
    """A GitHub-flavoured Markdown table, ready to paste into a CPython issue."""
    c = comparison
    lines = [
        f"**pystats**: base {_label(c.base)} → head {_label(c.head)}"
        + (" (family totals)" if c.family_view else "")
        + (" (per loop)" if c.base.get("per_loop") else ""),
        "",
        "| Counter | Base | Head | Δ | Change |",
        "|:---|---:|---:|---:|---:|",
    ]
    for row in c.rows[:limit]:
        name = row.name.replace("|", "\\|")
        lines.append(f"| `{name}` | {_num(row.base)} | {_num(row.head)} | {_num(row.delta, True)} | {_change(row)} |")
    notes = []
    if len(c.rows) > limit:
        notes.append(f"{len(c.rows) - limit} more changed counters not shown")
    if c.hidden:
        notes.append(f"{c.hidden} counters below the ±{c.threshold:.1%} threshold")
    if notes:
        lines += ["", "_" + "; ".join(notes) + "._"]
    return "\n".join(lines) + "\n"


def to_rich(comparison: Comparison, limit: int = 50) -> Table:
    from rich.table import Table

    c = comparison
    table = Table(
        title=f"base {_label(c.base)}\nhead {_label(c.head)}",
        caption=(f"{len(c.rows) - limit} more rows not shown" if len(c.rows) > limit else None),
    )
    table.add_column("Counter", overflow="fold")
    for title in ("Base", "Head", "Δ", "Change"):
        table.add_column(title, justify="right")
    styles = {"new": "cyan", "gone": "magenta", "same": "dim"}
    for row in c.rows[:limit]:
        style = styles.get(row.status, "yellow" if row.delta > 0 else "blue")
        table.add_row(
            row.name, _num(row.base), _num(row.head), _num(row.delta, True), f"[{style}]{_change(row)}[/{style}]"
        )
    return table


def to_json(comparison: Comparison) -> str:
    return json.dumps(to_dict(comparison), indent=1)


def to_dict(comparison: Comparison) -> dict[str, Any]:
    c = comparison
    rows = [
        {
            "name": r.name,
            "base": r.base,
            "head": r.head,
            "delta": r.delta,
            "ratio": r.ratio,
            "change": r.change if math.isfinite(r.change) else None,
            "status": r.status,
        }
        for r in c.rows
    ]
    return {
        "schema": COMPARE_SCHEMA,
        "base": dict(c.base),
        "head": dict(c.head),
        "threshold": c.threshold,
        "family_view": c.family_view,
        "hidden": c.hidden,
        "rows": rows,
    }
