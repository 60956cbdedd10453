"""What validate can and cannot count exactly on a build whose tier-2 optimizer traces hot loops.

A configuration that traces (``tier2``, ``jit``) runs a hot loop, once traced, as uops: the
``ENTER_EXECUTOR`` that replaced its ``JUMP_BACKWARD`` jumps into the trace, and the tier-1
instructions of the body are no longer dispatched (their ``execution_count`` stops growing). So the
canaries' premise, tier-1 family counts growing by exactly ``dis(body)`` per iteration, is false; and
so is the outside-the-bracket check's (2·c(N) − c(2N) of the tier-1 family totals is the bracket's own
count only if those totals grow exactly per loop; the warm-up before a loop is traced runs in tier 1).

What a canary's two dumps prove instead (``tier2_accounting``): where the loop's trace (read after the
bracket by ``suite/canary_trace.py``) closes on itself and tier 1 grows by 0 per iteration, every
uop's ``execution_count`` grows by exactly N x its occurrences in the trace: the canary is *proven*
(exact, by tier-2 accounting). Otherwise the canary is ``cannot_count`` with the accounting (uops per
iteration, whole multiples of N or not, the tier-1 families per iteration): ``partial``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
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


def leak_verdict(workloads: int, tracing: bool, compared: str) -> tuple[StepStatus, str]:
    """The leakage step's status and summary when nothing leaked (``compared``: what was compared, and
    by which rules)."""
    if tracing:
        return StepStatus.PARTIAL, f"no leakage in {workloads} workloads (automated vs manual: {compared}); {LEAK_NOTE}"
    return (
        StepStatus.PASS,
        f"no leakage in {workloads} workloads (automated vs manual, outside the brackets): {compared}",
    )


def uop_counts(text: str) -> dict[str, int]:
    """``uops[_NAME].execution_count`` of one or more dump texts, summed, by name (underscored)."""
    out: dict[str, int] = {}
    for m in _UOP.finditer(text):
        name = m["name"] if m["name"].startswith("_") else f"_{m['name']}"
        out[name] = out.get(name, 0) + int(m["n"])
    return out


def traces_executed(text: str) -> int:
    return sum(int(m) for m in _TRACES.findall(text))


def tier2_accounting(
    name: str, n: int, texts: Sequence[str], mismatches: list[dict[str, Any]], trace: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
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
    trace_uops = Counter(trace["uops"]) if trace else None
    exact = not ragged and not uneven and not any(tier1.values())
    if trace and exact and {u: d // n for u, d in delta.items() if d} == dict(Counter(trace["uops"])):
        return [{"canary": name, "proven": per_iteration // n, "trace": dict(trace)}]
    whole = (
        "every uop's count a whole multiple of N" if not ragged else f"not a whole multiple of N: {', '.join(ragged)}"
    )
    reason = (
        f"loop traced in tier 2 ({traces_executed(texts[1])} trace executions at 2N): tier-1 counts per "
        f"iteration do not follow dis; {per_iteration / n:g} uops per iteration ({whole}); "
        + (f"tier-1 families not a whole multiple of N: {', '.join(uneven)}; " if uneven else "")
        + _trace_note(trace_uops, delta, n)
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


def _trace_note(trace_uops: Counter[str] | None, delta: Mapping[str, int], n: int) -> str:
    if trace_uops is None:
        return "no loop trace found after the run (the trace exits, or another executor runs the loop)"
    seen = Counter({u: d // n for u, d in delta.items() if d > 0 and d % n == 0})
    return (
        f"the loop trace's {sum(trace_uops.values())} uops differ from those per iteration ({_sym(trace_uops, seen)})"
    )


def _sym(trace: Counter[str], seen: Counter[str]) -> str:
    more, fewer = seen - trace, trace - seen
    return "; ".join(
        [*(f"+{k} {u}" for u, k in sorted(more.items())), *(f"-{k} {u}" for u, k in sorted(fewer.items()))][:6]
    )


def proven(found: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """(proven canaries, the other findings, the note the step's summary adds for the proven ones)."""
    everything = list(found)
    exact = [f for f in everything if "proven" in f]
    rest = [f for f in everything if "proven" not in f]
    what = ", ".join(f"{f['canary']} ({f['proven']} uops)" for f in exact)
    note = f"; traced, exact by tier-2 accounting (uops per iteration == the loop trace's): {what}"
    return exact, rest, note if exact else ""
