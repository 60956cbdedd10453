"""What validate can and cannot count exactly on a build whose tier-2 optimizer traces hot loops.

A configuration that traces (``tier2``, ``jit``) runs a hot loop, once traced, as uops: the
``ENTER_EXECUTOR`` that replaced its ``JUMP_BACKWARD`` jumps into the trace, and the tier-1
instructions of the body are no longer dispatched (their ``execution_count`` stops growing). So the
canaries' premise, tier-1 family counts growing by exactly ``dis(body)`` per iteration, is false; and
so is the outside-the-bracket check's (2·c(N) − c(2N) of the tier-1 family totals is the bracket's own
count only if those totals grow exactly per loop; the warm-up before a loop is traced runs in tier 1).

What a canary's two dumps still prove (``tier2_accounting``): between N and 2N iterations every
tier-1 family grows by a whole multiple of N (0 where the loop runs entirely in the trace) and every
uop's ``execution_count`` by a whole multiple of N — the steady state of a traced loop runs the same
uops every iteration. Comparing those per-iteration uops with the trace's own uop list would need the
executor read in the container (3.13's ``_opcode.get_executor(code, offset)``, indexable as
``(name, oparg, target, operand)``); the harness does not read it yet, so the step is ``partial``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pystats_harness.validate.report import StepStatus

#: Configurations whose builds trace hot loops into tier 2.
TRACING = frozenset({"tier2", "jit"})
_UOP = re.compile(r"^uops\[(?P<name>[^\]]+)\]\.execution_count\s*:\s*(?P<n>\d+)\s*$", re.M)
_TRACES = re.compile(r"^Optimization traces executed:\s*(\d+)\s*$", re.M)

LEAK_NOTE = (
    "outside-the-bracket check (b) not made: tier-1 family totals do not grow exactly per loop once "
    "the tier-2 optimizer traces a loop (the warm-up before the trace runs in tier 1)"
)


def traces(manifest: Mapping[str, Any]) -> bool:
    """Whether the build's configuration traces hot loops (tier-1 counts then stop growing per loop)."""
    return str(manifest.get("configuration", "default")) in TRACING


def leak_verdict(workloads: int, tracing: bool) -> tuple[StepStatus, str]:
    """The leakage step's status and summary when nothing leaked."""
    if tracing:
        return StepStatus.PARTIAL, f"no leakage in {workloads} workloads (automated == manual); {LEAK_NOTE}"
    return StepStatus.PASS, f"no leakage in {workloads} workloads (automated == manual, nothing outside brackets)"


def uop_counts(text: str) -> dict[str, int]:
    """``uops[_NAME].execution_count`` of one or more dump texts, summed, by name (underscored)."""
    out: dict[str, int] = {}
    for m in _UOP.finditer(text):
        name = m["name"] if m["name"].startswith("_") else f"_{m['name']}"
        out[name] = out.get(name, 0) + int(m["n"])
    return out


def traces_executed(text: str) -> int:
    return sum(int(m) for m in _TRACES.findall(text))


def tier2_accounting(name: str, n: int, texts: Sequence[str], mismatches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The canary's findings on a tracing build: its tier-1 mismatches replaced by one ``cannot_count``
    finding with the tier-2 accounting, when the loop was traced (uops ran more at 2N than at N);
    otherwise the mismatches as they are (a wrong count is a wrong count)."""
    low, high = (uop_counts(t) for t in texts)
    delta = {u: high.get(u, 0) - low.get(u, 0) for u in sorted(set(low) | set(high))}
    per_iteration = sum(delta.values())
    if not mismatches or per_iteration <= 0:
        return mismatches
    ragged = sorted(u for u, d in delta.items() if d % n)
    tier1 = {m["family"]: m["observed"] // n for m in mismatches if m["observed"] % n == 0}
    uneven = sorted(m["family"] for m in mismatches if m["observed"] % n)
    whole = (
        "every uop's count a whole multiple of N" if not ragged else f"not a whole multiple of N: {', '.join(ragged)}"
    )
    reason = (
        f"loop traced in tier 2 ({traces_executed(texts[1])} trace executions at 2N): tier-1 counts per "
        f"iteration do not follow dis; {per_iteration / n:g} uops per iteration ({whole}); "
        + (f"tier-1 families not a whole multiple of N: {', '.join(uneven)}; " if uneven else "")
        + "an exact check against the trace's own uops needs the executor read in the container"
    )
    return [
        {
            "canary": name,
            "family": f"tier 1 (traced: {per_iteration / n:g} uops per iteration)",
            "cannot_count": reason,
            "uops_per_iteration": {u: d / n for u, d in delta.items() if d},
            "tier1_per_iteration": tier1,
            "mismatches": mismatches,
        }
    ]
