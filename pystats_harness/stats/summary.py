"""A collection at a glance: the busiest opcode families with their specialization counts, and what
tier 2 did when the dumps have optimizer lines."""

from __future__ import annotations

from rich.table import Table

from pystats_harness.stats.collection import Collection, Number

LIMIT = 30


def _count(value: Number) -> str:
    """A count with thousands separators, exact for an int of any size (a float is rounded)."""
    return f"{value:,d}" if isinstance(value, int) else f"{value:,.0f}"


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
    return "Tier 2: " + ", ".join(f"{_count(c.get(name, 0))} {words}" for name, words in TIER2_TOTALS)


def busiest_families(c: Collection, limit: int = LIMIT) -> list[tuple[str, Number]]:
    """(family, executions), most executed first."""
    rows = [
        (k.split(".")[1], v)
        for k, v in c.counters.items()
        if k.startswith("family.") and k.endswith(".execution_count")
    ]
    return sorted(rows, key=lambda kv: -kv[1])[:limit]


def to_markdown(c: Collection, limit: int = LIMIT) -> str:
    meta = c.metadata
    lines = [
        f"**pystats** {meta.get('revision', '?')} ({str(meta.get('sha', ''))[:12]}), "
        f"Python {meta.get('python_version', '?')}, {meta.get('nfiles', '?')} files",
        "",
        "| Family | Executions | Hit | Miss | Deopt |",
        "|:---|---:|---:|---:|---:|",
    ]
    for fam, value in busiest_families(c, limit):
        spec = [c.get(f"family.{fam}.specialization.{k}", 0) for k in ("hit", "miss", "deopt")]
        lines.append(f"| `{fam}` | {_count(value)} | " + " | ".join(_count(v) for v in spec) + " |")
    tier2 = tier2_line(c)
    return "\n".join(lines + (["", tier2] if tier2 else [])) + "\n"


def to_rich(c: Collection, limit: int = LIMIT) -> Table:
    t = Table(
        title=f"{c.metadata.get('revision', '?')}: top {limit} opcode families by executions", caption=tier2_line(c)
    )
    t.add_column("Family")
    for column in ("Executions", "Hit", "Miss"):
        t.add_column(column, justify="right")
    for fam, value in busiest_families(c, limit):
        t.add_row(
            fam,
            _count(value),
            _count(c.get(f"family.{fam}.specialization.hit", 0)),
            _count(c.get(f"family.{fam}.specialization.miss", 0)),
        )
    return t
