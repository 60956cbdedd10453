"""Compare two collections (base vs head) and render the result; cross-check against summarize_stats.py."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pystats_harness.errors import ConfigError, StatsParseError
from pystats_harness.stats.collection import Collection, Number
from pystats_harness.stats.dumps import classify
from pystats_harness.stats.names import NameTables

if TYPE_CHECKING:
    from rich.table import Table

COMPARE_SCHEMA = "pystats-harness/compare/1"
_META_KEYS = ("revision", "sha", "python_version", "nfiles", "loops", "per_loop")


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
    def status(self) -> str:
        if not self.base and self.head:
            return "new"
        if self.base and not self.head:
            return "gone"
        return "same" if self.delta == 0 else "changed"


@dataclass(frozen=True)
class Comparison:
    base: Mapping[str, Any]
    head: Mapping[str, Any]
    rows: tuple[Row, ...]
    threshold: float
    family_view: bool
    hidden: int  # rows whose |change| is below the threshold


def _in_view(name: str, family_view: bool) -> bool:
    if family_view:
        return not name.startswith("opcode.")
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


def to_rich_table(comparison: Comparison, limit: int = 50) -> Table:
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
    return json.dumps(
        {
            "schema": COMPARE_SCHEMA,
            "base": dict(c.base),
            "head": dict(c.head),
            "threshold": c.threshold,
            "family_view": c.family_view,
            "hidden": c.hidden,
            "rows": rows,
        },
        indent=1,
    )


# --- cross-check against CPython's own Tools/scripts/summarize_stats.py ------------------------------


@dataclass(frozen=True)
class Mismatch:
    name: str
    ours: Number | None
    theirs: Number | None


def _from_summarize_json(doc: Mapping[str, Any], names: NameTables | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, value in doc.items():
        if key == "__nfiles__":
            out["__nfiles__"] = int(value)
            continue
        if not key.startswith("opcode[") or not isinstance(value, int):
            continue
        stat = classify(key.strip(), value)
        if stat.kind not in ("opcode", "specialization"):
            continue
        op = stat.parts[0]
        if op.isdigit():
            if names is None:
                raise ConfigError("summarize_stats JSON has opcode numbers: pass the build's names.json")
            op = names.opname(op)
        field = stat.parts[1] if stat.kind == "opcode" else f"specialization.{stat.parts[1]}"
        out[f"opcode.{op}.{field}"] = out.get(f"opcode.{op}.{field}", 0) + value
    return out


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _int(text: str) -> int | None:
    text = text.replace(",", "")
    return int(text) if text.isdigit() else None


def _from_summarize_markdown(text: str) -> dict[str, int]:
    """Execution counts and specialization tables of summarize_stats.py's Markdown (3.11 layout)."""
    out: dict[str, int] = {}
    h2 = h3 = ""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("## "):
            h2, h3 = line[3:].strip(), ""
        elif line.startswith("### "):
            h3 = line[4:].strip()
        if (
            not line.startswith("|")
            or line.startswith("|---")
            or (i + 1 < len(lines) and lines[i + 1].startswith("|---"))
        ):
            continue
        cells = _cells(line)
        if len(cells) < 2 or (value := _int(cells[1])) is None:
            continue
        if h2 == "Execution counts":
            out[f"opcode.{cells[0]}.execution_count"] = value
        elif h2 == "Specialization stats" and h3:
            label = cells[0].removeprefix("specialization.")
            field = {
                "unquickened": "execution_count",
                "Success": "specialization.success",
                "Failure": "specialization.failure",
            }.get(label)
            if field is None and label in ("hit", "miss", "deferred", "deopt"):
                field = f"specialization.{label}"
            if field:
                out[f"opcode.{h3}.{field}"] = value
    return out


def crosscheck(
    collection: Collection, summarize_output: str | Mapping[str, Any], names: NameTables | None = None
) -> list[Mismatch]:
    """Compare execution counts and specialization totals with summarize_stats.py's output for the
    same files: its ``--json-output`` document (3.12+; numeric 3.12 keys need ``names``) or its
    Markdown (3.11).  Returns the counters that differ (empty list: they agree)."""
    doc: Any = summarize_output
    if isinstance(doc, str) and doc.lstrip().startswith("{"):
        try:
            doc = json.loads(doc)
        except json.JSONDecodeError as exc:
            raise StatsParseError(f"summarize_stats JSON is invalid at line {exc.lineno}: {exc.msg}") from exc
    theirs = _from_summarize_json(doc, names) if isinstance(doc, Mapping) else _from_summarize_markdown(doc)
    if not theirs:
        raise StatsParseError(
            "no execution counts found in the summarize_stats output: pass its Markdown "
            "(3.11) or its --json-output document (3.12+; its Markdown uses HTML tables)"
        )
    mismatches: list[Mismatch] = []
    nfiles = theirs.pop("__nfiles__", None)
    if nfiles is not None and nfiles != collection.metadata.get("nfiles"):
        mismatches.append(Mismatch("__nfiles__", collection.metadata.get("nfiles"), nfiles))
    for name in sorted(theirs):
        if collection.counters.get(name, 0) != theirs[name]:
            mismatches.append(Mismatch(name, collection.counters.get(name), theirs[name]))
    for name, value in sorted(collection.counters.items()):
        if name.startswith("opcode.") and name.endswith(".execution_count") and value and name not in theirs:
            mismatches.append(Mismatch(name, value, None))
    return mismatches
