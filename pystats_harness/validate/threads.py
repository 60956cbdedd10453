"""The ``threads`` step: the threaded canary (measure/threads.py) on the build under validation.

PASS when every count is exact with every thread count in every run; FAIL (``ThreadsNotHeld``, exit 30)
when not, with one line naming the family, the thread count and the share counted; PARTIAL when the
canary cannot be counted here (a build that traces runs the kernel's loop as uops; a revision without
a C-level join), with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.infra.context import Context
from pystats_harness.measure import threads as _threads
from pystats_harness.measure.suiteconfig import SuiteConfig
from pystats_harness.validate.report import Step, StepResult, StepStatus

TRACING = "on a build that traces, the threaded canary's loop runs as uops (tier-1 counts are not its executions)"


def findings(verdict: _threads.ThreadVerdict) -> tuple[dict[str, Any], ...]:
    """One row per thread count (the family furthest from 100 %, worst of the runs, and the range over
    every family; ``by_family`` in the JSON), then each count that is not exact."""
    rows: list[dict[str, Any]] = []
    for t, shares in sorted(verdict.worst_by_threads().items()):
        family = max(shares, key=lambda f: abs(shares[f] - 1))
        low, high = min(shares.values()), max(shares.values())
        rows.append(
            {
                "threads": t,
                "worst family": family,
                "counted": f"{float(shares[family]):.1%}",
                "families": f"{len(shares)}: {float(low):.1%} .. {float(high):.1%}",
                "runs": verdict.plan.repeats,
                "by_family": {f: float(v) for f, v in sorted(shares.items())},
            }
        )
    return tuple(rows + [dict(m) for m in verdict.mismatches])


def judged(verdict: _threads.ThreadVerdict) -> StepResult:
    if verdict.cannot:
        return StepResult(Step.THREADS, StepStatus.PARTIAL, verdict.line(), findings(verdict))
    status = StepStatus.PASS if verdict.exact else StepStatus.FAIL
    return StepResult(Step.THREADS, status, verdict.line(), findings(verdict))


def step_threads(
    ctx: Context, entry: CacheEntry, suite: SuiteConfig, table: Mapping[str, Any], tracing: bool = False
) -> StepResult:
    if tracing:
        return StepResult(Step.THREADS, StepStatus.PARTIAL, f"not judged: {TRACING}")
    return judged(_threads.measure(ctx, entry, suite.threads, table))
