"""The leakage step's one adjustment: ``deferred`` counts that a miss decrements (a rule read from the
build's own source, ``canary_rules.deferred_rule``, as the canary rules are).

Where the rule applies (main Nov 2022 - Dec 2023, 3.12), ``UPDATE_MISS_STATS`` decrements
``opcode.<X>.specialization.deferred`` on a miss of X, before X (reached by ``GO_TO_INSTRUCTION``)
increments it, and counts that miss in ``opcode.<X>.specialization.miss``.  So what a run dumps is
its true deferred count less ``d``, with ``0 <= d <= miss`` (one decrement at most per miss; a base
that never increments it, such as 3.13.0a1's ``RESUME``, only goes down, and a uint64 wraps below
zero).  The leakage comparison is ``E = (A_w - A_null) - P * (M_w - M_null)`` (automated totals
over P worker processes, manual counts); if the true counts agree,

    -(miss(A_w) + P * miss(M_null))  <=  E  <=  miss(A_null) + P * miss(M_w)

and a difference inside that window is reported as adjusted, not as leakage.  Where the rule does
not apply or is undetermined (no source recorded) the counter stays exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from pystats_harness.stats.exact import Difference, display
from pystats_harness.suite import canary_rules, canary_source

#: The finding kind (``check``) of a difference the rule allows.
KIND = "adjusted across an instruction boundary"
WHY = "UPDATE_MISS_STATS decrements deferred before the instruction increments it"
_SUFFIX = ".specialization.deferred"


@dataclass(frozen=True)
class DeferredRule:
    """``applied``: True (the source shows the decrement), False (it shows none), None (undetermined)."""

    applied: bool | None
    why: str

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> DeferredRule:
        rule = table.get("deferred_rule") or {"applied": None, "why": "the canary table has no deferred rule"}
        return cls(rule["applied"], str(rule["why"]))

    @classmethod
    def from_source(cls, root: Path) -> DeferredRule:
        """The rule read on the host from a build's recorded source (``CacheEntry.source_dir``), for a
        caller without the canary table (collect)."""
        files = canary_source.read_files(str(root))
        source = canary_source.source_facts(files, set()) if files else None
        return cls.from_table({"deferred_rule": canary_rules.deferred_rule(source)})

    def covers(self, name: str) -> bool:
        """A counter the rule is about (whether or not it applies)."""
        return name.startswith("opcode.") and name.endswith(_SUFFIX)

    def judge(
        self,
        d: Difference,
        automated: tuple[Mapping[str, int], Mapping[str, int]],
        manual: tuple[Mapping[str, int], Mapping[str, int]],
        processes: int,
    ) -> dict[str, Any]:
        """What the rule says of one leakage difference (``d.excess`` = A_w - A_null - P * (M_w - M_null)):
        ``{}`` (not about it), a ``note`` (beyond the window, or the rule undetermined), or ``check``
        = :data:`KIND` with the window ``within`` (per process)."""
        if not self.covers(d.name) or self.applied is False:
            return {}
        if self.applied is None:
            return {"note": self.describe()}
        allowed = window(d.name, automated, manual, processes)
        k = display(allowed.per_process)
        if allowed.allows(d.excess):
            return {"check": KIND, "within": k, "note": f"within ±{k}"}
        return {"note": f"beyond the ±{k} allowed where {WHY}"}

    def describe(self) -> str:
        state = {True: "applied", False: "not applied", None: "undetermined"}[self.applied]
        return f"deferred rule {state}: {self.why}"


@dataclass(frozen=True)
class Window:
    """The excess ``E`` (automated total - P * manual) the rule allows, both ends included."""

    low: int
    high: int
    processes: int

    def allows(self, excess: int) -> bool:
        return self.low <= excess <= self.high

    @property
    def per_process(self) -> Fraction:
        """The widest allowance per process (``a`` and ``b`` are compared per process): ``k`` of ±k."""
        return Fraction(max(-self.low, self.high), self.processes)


def summary(adjusted: list[dict[str, Any]]) -> str:
    """The leakage summary's part for the adjusted findings (three shown)."""
    shown = "; ".join(
        f"{f['workload']}: {f['counter']} {f['a']} vs {f['b']}, within ±{f['within']}" for f in adjusted[:3]
    )
    more = f"; {len(adjusted) - 3} more" if len(adjusted) > 3 else ""
    return f"{len(adjusted)} counter(s) {KIND} ({WHY}): {shown}{more}"


def miss_counter(name: str) -> str:
    """``opcode.X.specialization.deferred`` -> ``opcode.X.specialization.miss``."""
    return name[: -len(_SUFFIX)] + ".specialization.miss"


def window(
    name: str,
    automated: tuple[Mapping[str, int], Mapping[str, int]],
    manual: tuple[Mapping[str, int], Mapping[str, int]],
    processes: int,
) -> Window:
    """The window for counter ``name`` from the misses of (workload, null) on each path."""
    miss = miss_counter(name)
    (auto_w, auto_null), (man_w, man_null) = automated, manual
    low = -(auto_w.get(miss, 0) + processes * man_null.get(miss, 0))
    high = auto_null.get(miss, 0) + processes * man_w.get(miss, 0)
    return Window(low, high, processes)
