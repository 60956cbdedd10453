"""Which benchmarks trace under tier 2, and the optimizer's rates per benchmark (pure).

From a collection's ``optimizer.*`` counters (see docs/stats.md), per benchmark: traces created over
optimization attempts, trace executions and uops executed per loop, and uops executed per tier-1
instruction executed (both per loop, so the ratio says how much of the benchmark's work ran as uops).
A benchmark *traces* when its collection executed at least one trace; a collection without
``optimizer.*`` counters (a build that does not print them) has no row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Tier2Rates:
    attempts: float
    traces_created: float
    traces_executed: float
    uops_executed: float
    executed: float  # tier-1 instructions per loop

    @property
    def traces(self) -> bool:
        return self.traces_executed > 0

    @property
    def created_ratio(self) -> float | None:
        return self.traces_created / self.attempts if self.attempts else None

    @property
    def uops_per_instruction(self) -> float | None:
        return self.uops_executed / self.executed if self.executed else None


def rates(per_loop: Mapping[str, float]) -> Tier2Rates | None:
    """The optimizer's rates of one benchmark's per-loop counters (None: no tier-2 counters)."""
    if not any(k.startswith("optimizer.") for k in per_loop):
        return None
    executed = sum(v for k, v in per_loop.items() if k.startswith("opcode.") and k.endswith(".execution_count"))
    return Tier2Rates(
        per_loop.get("optimizer.attempts", 0.0),
        per_loop.get("optimizer.traces_created", 0.0),
        per_loop.get("optimizer.traces_executed", 0.0),
        per_loop.get("optimizer.uops_executed", 0.0),
        executed,
    )


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def table(by_side: Mapping[str, Mapping[str, Tier2Rates | None]]) -> list[str]:
    """Markdown lines: one row per (side, benchmark) with tier-2 counters; [] when neither side has any."""
    rows = [(side, name, r) for side, found in by_side.items() for name, r in sorted(found.items()) if r is not None]
    if not rows:
        return []
    lines = [
        "",
        "Tier 2 (per loop; traces created / attempts; uops executed per tier-1 instruction):",
        "",
        "| Side | Benchmark | Traces | Created / attempts | Trace runs | Uops executed | Uops per tier-1 instr. |",
        "|:---|:---|:-:|---:|---:|---:|---:|",
    ]
    for side, name, r in rows:
        per_instr = "—" if r.uops_per_instruction is None else f"{r.uops_per_instruction:,.1f}"
        lines.append(
            f"| {side} | `{name}` | {'yes' if r.traces else 'no'} | {r.traces_created:,.1f} / {r.attempts:,.1f} "
            f"({_ratio(r.created_ratio)}) | {r.traces_executed:,.1f} | {r.uops_executed:,.1f} | {per_instr} |"
        )
    return lines
