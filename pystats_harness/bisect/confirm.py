"""After an exact search: does the culprit hold up?

The first bad commit and the good commit before it on the path (its parent in a linear history) are
measured again, :data:`REPEATS` times each, each run in a fresh container and none read from or stored
in the results store; every parent value must judge good and every first-bad value bad (same
:class:`Judge`). Then, where the culprit's diff (culprit → parent) applies to the bad endpoint's tree,
the bad endpoint is built with it applied (an ``UpstreamPatch`` of kind revert, its own build key) and
measured once: the metric should be back on the good side.

:func:`conclude` (and what it calls) is the pure judging; :func:`confirm` does the measuring.
"""

from __future__ import annotations

import enum
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pystats_harness.bisect.judge import Judge
from pystats_harness.bisect.search import BisectResult
from pystats_harness.builder.upstream import Kind, UpstreamPatch
from pystats_harness.infra.apply import applicable
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.mirror import Mirror
from pystats_harness.measure.axes import fmt_value
from pystats_harness.measure.measurer import Measured, Measurer
from pystats_harness.measure.outcome import Outcome

REPEATS = 3  # runs of the parent and of the first bad commit


class Status(enum.StrEnum):
    CONFIRMED = "confirmed"  # values repeat and the revert brings the metric back
    REPEATED = "repeated"  # values repeat; no revert could be built or measured
    NOT_CONFIRMED = "not confirmed"  # values do not repeat, or the revert leaves it bad
    SKIPPED = "not run"  # the search was not exact, or --no-confirm


@dataclass(frozen=True)
class Revert:
    """The culprit's diff undone on top of the bad endpoint: whether it applied, and the value."""

    sha: str  # the culprit
    onto: str  # the bad endpoint it was applied to
    applied: bool
    value: float | None = None
    reason: str = ""  # why it did not apply or could not be measured

    def to_dict(self) -> dict[str, Any]:
        return {"sha": self.sha, "onto": self.onto, "applied": self.applied, "value": self.value, "reason": self.reason}


@dataclass(frozen=True)
class Remeasured:
    """One fresh run of the confirmation, as the results store records it: its label (``confirm parent
    1/3``), what measuring gave, and the culprit's sha when the run was of a commit with the culprit
    reverted on top."""

    label: str
    record: Measured
    reverted: str = ""


@dataclass(frozen=True)
class Confirmation:
    status: Status
    good_values: tuple[float | None, ...] = ()  # the parent's (None: that run failed)
    bad_values: tuple[float | None, ...] = ()  # the first bad commit's
    revert: Revert | None = None
    reason: str = ""
    builds: int = 0  # builds that ran for it (the revert's; the others are build-cache hits)
    runs: int = 0
    seconds: float = 0.0
    remeasured: tuple[Remeasured, ...] = field(default=(), compare=False)  # recorded, not in the report

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "good_values": list(self.good_values),
            "bad_values": list(self.bad_values),
            "good_spread": spread(self.good_values),
            "bad_spread": spread(self.bad_values),
            "revert": self.revert.to_dict() if self.revert else None,
            "reason": self.reason,
            "builds": self.builds,
            "runs": self.runs,
            "seconds": round(self.seconds, 2),
            "line": self.line(),
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Confirmation:
        """Read back what :meth:`to_dict` wrote."""
        r = doc.get("revert")
        revert = Revert(r["sha"], r["onto"], bool(r["applied"]), r.get("value"), r.get("reason") or "") if r else None
        return cls(
            Status(doc["status"]),
            tuple(doc.get("good_values") or ()),
            tuple(doc.get("bad_values") or ()),
            revert,
            doc.get("reason") or "",
            int(doc.get("builds", 0)),
            int(doc.get("runs", 0)),
            float(doc.get("seconds", 0.0)),
        )

    def line(self) -> str:
        """``confirmed: parent 0.96 ×3; first bad 0.72 ×3; bad + revert of 1234567890: 0.96 (good side)``."""
        if self.status is Status.SKIPPED:
            return f"{self.status}: {self.reason}"
        parts = [f"parent {_values(self.good_values)}", f"first bad {_values(self.bad_values)}"]
        r = self.revert
        if r is not None and r.applied and r.value is not None:
            side = "good side" if self.status is Status.CONFIRMED else "bad side"
            parts.append(f"bad + revert of {r.sha[:10]}: {fmt_value(r.value)} ({side})")
        text = f"{self.status}: " + "; ".join(parts)
        return text if self.status is Status.CONFIRMED or not self.reason else f"{text} — {self.reason}"


def skipped(reason: str) -> Confirmation:
    return Confirmation(Status.SKIPPED, reason=reason)


# --- judging (pure) -----------------------------------------------------------------------------------


def spread(values: Sequence[float | None]) -> float | None:
    """Largest minus smallest of the values that were measured (None when none was)."""
    known = [v for v in values if v is not None]
    return max(known) - min(known) if known else None


def _values(values: Sequence[float | None]) -> str:
    if values and len(set(values)) == 1:
        return f"{fmt_value(values[0])} ×{len(values)}"
    gap = spread(values)
    return ", ".join(fmt_value(v) for v in values) + (f" (spread {gap:.3g})" if gap else "")


def repeat_problem(judge: Judge, good: Sequence[float | None], bad: Sequence[float | None]) -> str:
    """Why the values do not repeat ("" when every parent value is good and every first-bad value bad)."""
    for name, values, want_bad in (("parent", good, False), ("first bad", bad, True)):
        for n, value in enumerate(values, 1):
            if value is None:
                return f"{name} run {n} of {len(values)} gave no value"
            if judge.is_bad(value) != want_bad:
                side = "bad" if want_bad else "good"
                return f"{name} run {n} gave {fmt_value(value)}, not {side} by '{judge.describe()}'"
    return ""


def conclude(
    judge: Judge, good: Sequence[float | None], bad: Sequence[float | None], revert: Revert | None
) -> Confirmation:
    """The status from the re-measured values and the revert (None: not tried)."""
    values = (tuple(good), tuple(bad))
    problem = repeat_problem(judge, good, bad)
    if problem:
        return Confirmation(Status.NOT_CONFIRMED, *values, revert, f"the values do not repeat: {problem}")
    spreads = f"spread {spread(good) or 0:.3g} (parent), {spread(bad) or 0:.3g} (first bad)"
    if revert is None or not revert.applied or revert.value is None:
        why = revert.reason if revert is not None else "no revert was tried"
        return Confirmation(Status.REPEATED, *values, revert, f"values repeat ({spreads}); {why}")
    if judge.is_bad(revert.value):
        why = f"the revert did not bring it back ({fmt_value(revert.value)}, {judge.describe()})"
        return Confirmation(Status.NOT_CONFIRMED, *values, revert, why)
    return Confirmation(Status.CONFIRMED, *values, revert, f"values repeat ({spreads}); the revert brings it back")


def changed_paths(diff: str) -> tuple[str, ...]:
    """The files a ``git diff`` text changes (new names for renames)."""
    return tuple(dict.fromkeys(m.group(1) for m in re.finditer(r"^diff --git a/.* b/(.*)$", diff, re.MULTILINE)))


# --- measuring ----------------------------------------------------------------------------------------

#: (label, runs left, path index, commit) before a run and (label, runs left, path index, record) after
Before = Callable[[str, int, int, CommitInfo], None]
After = Callable[[str, int, int, Measured], None]


def revert_patch(mirror: Mirror, culprit: CommitInfo, parent: CommitInfo, bad: CommitInfo) -> UpstreamPatch | str:
    """The culprit's diff reversed, as a revert to apply on ``bad``; or why there is none."""
    text = mirror.diff(culprit.sha, parent.sha)
    text += "" if text.endswith("\n") else "\n"  # Mirror.diff drops the last newline (git apply needs it)
    if not text.strip():
        return f"the culprit {culprit.short} changes no file against {parent.short}"
    if applicable(mirror.path, bad.sha, [text]) != [True]:
        return f"the culprit's diff does not reverse on top of {bad.short}"
    how = "revert of the bisect's culprit"
    return UpstreamPatch(Kind.REVERT, culprit.sha, culprit.subject, changed_paths(text), text, how)


def confirm(
    measurer: Measurer,
    mirror: Mirror,
    path: Sequence[CommitInfo],
    result: BisectResult,
    before: Before,
    after: After,
) -> Confirmation:
    """Re-measure the culprit and its parent (fresh), then the bad endpoint with the culprit reverted."""
    if result.first_bad is None:
        return skipped("the search did not end on one commit")
    start, builds = time.perf_counter(), measurer.builds
    culprit, parent, bad = path[result.first_bad], path[result.last_good], path[-1]
    left = 2 * REPEATS + 1
    values: dict[int, list[float | None]] = {result.last_good: [], result.first_bad: []}
    remeasured: list[Remeasured] = []

    def run(label: str, index: int, commit: CommitInfo, extra: tuple[UpstreamPatch, ...] = ()) -> Outcome:
        nonlocal left
        before(label, left, index, commit)
        rec = measurer.measure(commit, fresh=True, extra=extra)
        remeasured.append(Remeasured(label, rec, culprit.sha if extra else ""))
        left -= 1
        after(label, left, index, rec)
        return rec.outcome

    for n in range(1, REPEATS + 1):
        for index, commit, name in ((result.last_good, parent, "parent"), (result.first_bad, culprit, "first bad")):
            o = run(f"confirm {name} {n}/{REPEATS}", index, commit)
            values[index].append(o.value if o.usable else None)
    good, bad_values = values[result.last_good], values[result.first_bad]
    revert: Revert | None = None
    if not repeat_problem(result.judge, good, bad_values):
        patch = revert_patch(mirror, culprit, parent, bad)
        if isinstance(patch, str):
            revert = Revert(culprit.sha, bad.sha, False, reason=patch)
        else:
            o = run(f"confirm bad + revert of {culprit.short}", len(path) - 1, bad, (patch,))
            why = "" if o.usable else f"bad + revert could not be measured: {o.reason}"
            revert = Revert(culprit.sha, bad.sha, True, o.value if o.usable else None, why)
    found = conclude(result.judge, good, bad_values, revert)
    runs = len(good) + len(bad_values) + (1 if revert and revert.applied else 0)
    seconds = time.perf_counter() - start
    return replace(found, builds=measurer.builds - builds, runs=runs, seconds=seconds, remeasured=tuple(remeasured))
