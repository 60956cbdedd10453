"""The ``threads`` check of a collect: did more than one thread run code while stats were on, and do
this build's counters hold when they do?

Measured in the manual path (suite/pyperformance_manual.py), one process per timed function, outside
its bracket so that nothing of it is counted: the CPU time the process's other threads used while
stats were on (process CPU time less the main thread's) and the threads with Python frames when the
bracket ended.  A timed function whose other threads used at least ``MIN_OTHER_CPU`` seconds, or that
left another thread with Python frames, ran threads.  Where one did, the build's threaded canary
(measure/threads.py, run once per build) says whether counters hold under threads:

pass          no timed function ran threads; or some did and the canary is exact on this build
fail          some did and the canary lost (or repeated) counts: the verdict is ``lossy`` whatever the
              other checks say (their differences are what a lost update looks like)
not checked   the manual path did not run (whether threads ran is unknown) on a build whose canary is
              not exact, or the canary could not be counted here
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pystats_harness.collect.exactness import Status
from pystats_harness.collect.trust import Check, CheckResult
from pystats_harness.measure.threads import ThreadVerdict

#: CPU seconds other threads must use inside a bracket to count as having run (a started thread that
#: runs Python code at all takes tens of microseconds; the reading's own noise is a few).
MIN_OTHER_CPU = 0.0005


@dataclass(frozen=True)
class ThreadUse:
    """What one timed function's manual run measured of its threads."""

    function: str
    other_cpu_seconds: float
    alive_after: int

    @property
    def ran_threads(self) -> bool:
        return self.other_cpu_seconds >= MIN_OTHER_CPU or self.alive_after > 1

    def describe(self) -> str:
        alive = f", {self.alive_after - 1} other thread(s) alive after" if self.alive_after > 1 else ""
        return f"{self.function}: other threads {self.other_cpu_seconds * 1000:.1f} ms CPU{alive}"

    @classmethod
    def from_report(cls, report: Mapping[str, Any], fallback: str) -> ThreadUse | None:
        threads, name = report.get("threads"), (report.get("bracketed") or [fallback])[0]
        if not threads:
            return None
        return cls(str(name), float(threads["other_cpu_seconds"]), int(threads["alive_after"]))


def check_threads(uses: Sequence[ThreadUse] | None, canary: Callable[[], ThreadVerdict]) -> CheckResult:
    """``uses``: per timed function (None: not measured); ``canary``: the build's threaded canary,
    asked only when its answer matters."""
    threaded = [u for u in uses or () if u.ran_threads]
    findings = tuple(
        {"function": u.function, "other_cpu_ms": round(u.other_cpu_seconds * 1000, 3), "alive_after": u.alive_after}
        for u in uses or ()
    )
    if uses is not None and not threaded:
        ran = "; ".join(u.describe() for u in uses)
        return CheckResult(Check.THREADS, Status.PASS, f"one thread counted ({ran})", findings)
    verdict = canary()
    which = (
        "whether threads ran was not measured (no manual path)"
        if uses is None
        else "ran threads: " + "; ".join(u.describe() for u in threaded)
    )
    if verdict.cannot:
        return CheckResult(Check.THREADS, Status.NOT_CHECKED, f"not checked: {which}; {verdict.cannot}", findings)
    if verdict.exact:
        detail = f"{which}; counters hold under threads on this build ({verdict.plain()}: exact)"
        return CheckResult(Check.THREADS, Status.PASS, detail, findings)
    loss = f"counters lose updates under threads in this build: {verdict.line()}"
    if uses is None:
        return CheckResult(Check.THREADS, Status.NOT_CHECKED, f"not checked: {which}; {loss}", findings)
    return CheckResult(Check.THREADS, Status.FAIL, f"{which}; {loss}", findings)
