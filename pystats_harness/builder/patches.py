"""Which patches a source tree needs, decided by probing the tree (never version numbers).

:func:`plan_patches` is a pure function of a file reader, the series and the user's request;
:func:`select` does that for a commit and is what a build records; :func:`to_rich` shows the plan.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from rich.markup import escape
from rich.table import Table

from pystats_harness.builder.series import Change, Reader, Series, SourceProbe, load_series
from pystats_harness.errors import ConfigError, PatchError, RevisionUnsupported

Requested: TypeAlias = "Literal['auto', 'none'] | Sequence[str]"


class Action(enum.Enum):
    APPLY = "apply"
    PRESENT = "already present"
    NOT_APPLICABLE = "not applicable"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Decision:
    change: str
    action: Action
    variant: str | None
    reason: str


@dataclass(frozen=True)
class PlannedPatch:
    change: str
    variant: str
    path: Path
    sha256: str


@dataclass(frozen=True)
class PatchPlan:
    decisions: tuple[Decision, ...]
    patches: tuple[PlannedPatch, ...]  # in application order
    requested: str = "auto"  # --patches as the user wrote it

    @property
    def patch_paths(self) -> list[Path]:
        return [p.path for p in self.patches]

    @property
    def series_digest(self) -> str:
        """sha256 over the ordered (change, variant, patch sha256) triples; the same for
        every unpatched build (no patches planned)."""
        h = hashlib.sha256()
        for p in self.patches:
            h.update(f"{p.change}\t{p.variant}\t{p.sha256}\n".encode())
        return h.hexdigest()

    def decision(self, change: str) -> Decision:
        return next(d for d in self.decisions if d.change == change)

    @property
    def digests(self) -> list[str]:
        """What the build cache key includes: change, variant and content of every applied patch."""
        return [f"{p.change}:{p.variant}:{p.sha256}" for p in self.patches]

    def summary(self) -> str:
        if not self.patches:
            return f"none applied (--patches {self.requested})"
        return ", ".join(f"{p.change} [{p.variant}]" for p in self.patches) + f" (--patches {self.requested})"

    def manifest_patches(self) -> list[dict[str, Any]]:
        return [
            {
                "id": p.change,
                "variant": p.variant,
                "file": f"patches/{p.path.parent.name}/{p.path.name}",
                "sha256": p.sha256,
            }
            for p in self.patches
        ]

    def manifest_decisions(self) -> list[dict[str, str]]:
        return [
            {"change": d.change, "action": d.action.value, "variant": d.variant or "", "reason": d.reason}
            for d in self.decisions
        ]


def _memo(read: Reader) -> Reader:
    cache: dict[str, str | None] = {}

    def cached(relpath: str) -> str | None:
        if relpath not in cache:
            cache[relpath] = read(relpath)
        return cache[relpath]

    return cached


def _check_all(read: Reader, probes: Sequence[SourceProbe]) -> tuple[bool, str]:
    notes = []
    for probe in probes:
        ok, note = probe.check(read)
        if not ok:
            return False, note
        notes.append(note)
    return True, "; ".join(notes)


def parse_requested(text: str) -> Requested:
    """'auto', 'none' or a comma-separated list of change ids (as given on a command line)."""
    text = text.strip()
    if text in ("auto", "none"):
        return text
    return [part.strip() for part in text.split(",") if part.strip()]


def _selected(series: Series, requested: Requested) -> set[str]:
    if requested == "auto":
        return set(series.ids)
    if requested == "none":
        return set()
    if isinstance(requested, str):
        raise ConfigError(f"patches must be 'auto', 'none' or a list of change ids, not {requested!r}")
    unknown = [r for r in requested if r not in series.ids]
    if unknown:
        raise ConfigError(f"unknown patch change(s) {', '.join(unknown)}; known: {', '.join(series.ids)}")
    return set(requested)


def _decide(change: Change, read: Reader, selected: bool, state: dict[str, Decision]) -> Decision:
    for group in change.present:
        ok, note = _check_all(read, group.probes)
        if ok:
            return Decision(change.id, Action.PRESENT, None, f"{group.label}: {note}")
    if not selected:
        return Decision(change.id, Action.SKIPPED, None, "not requested")
    misses = []
    for v in change.variants:
        unmet = [r for r in v.requires if state[r].action not in (Action.APPLY, Action.PRESENT)]
        if unmet:
            misses.append(f"{v.id}: needs {', '.join(f'{r} ({state[r].action.value})' for r in unmet)}")
            continue
        ok, note = _check_all(read, v.probes)
        if not ok:
            misses.append(f"{v.id}: {note}")
            continue
        if v.patch_sha256 is None:
            raise PatchError(f"{change.id}: variant {v.id} fits this tree but its patch {v.patch} is missing")
        needs = f"; on top of {', '.join(v.requires)}" if v.requires else ""
        return Decision(change.id, Action.APPLY, v.id, f"{note}{needs}")
    return Decision(change.id, Action.NOT_APPLICABLE, None, "no variant fits: " + " | ".join(misses or ["no variants"]))


def plan_patches(read: Reader, series: Series, requested: Requested = "auto") -> PatchPlan:
    """Decide, change by change in series order, what to do with the tree `read` gives.

    Raises RevisionUnsupported if the tree has no --enable-pystats, ConfigError for an
    unknown change id, PatchError if an explicitly requested change cannot be applied."""
    read = _memo(read)
    ok, note = _check_all(read, series.supported.probes)
    if not ok:
        raise RevisionUnsupported(
            f"this revision's pystats are not supported ({note}); supported: {series.supported.label}; "
            "choose a later revision"
        )
    selected = _selected(series, requested)
    state: dict[str, Decision] = {}
    patches: list[PlannedPatch] = []
    for change in series.changes:
        decision = _decide(change, read, change.id in selected, state)
        explicit = requested not in ("auto", "none") and change.id in selected
        if explicit and decision.action is Action.NOT_APPLICABLE:
            raise PatchError(f"requested change {change.id} cannot be applied to this revision: {decision.reason}")
        if decision.action is Action.APPLY:
            v = next(v for v in change.variants if v.id == decision.variant)
            patches.append(PlannedPatch(change.id, v.id, v.patch, v.patch_sha256 or ""))
        state[change.id] = decision
    return PatchPlan(tuple(state.values()), tuple(patches))


_STYLE = {Action.APPLY: "bold green", Action.PRESENT: "cyan", Action.NOT_APPLICABLE: "yellow", Action.SKIPPED: "dim"}


def to_rich(plan: PatchPlan, title: str = "Patch plan") -> Table:
    """A table for `invoke patches --rev REV`: change, action, variant, reason."""
    table = Table(title=title, caption=f"series digest {plan.series_digest[:16]}", show_lines=True)
    table.add_column("change", no_wrap=True)
    table.add_column("action", no_wrap=True)
    table.add_column("variant", no_wrap=True)
    table.add_column("reason")
    for d in plan.decisions:
        table.add_row(d.change, f"[{_STYLE[d.action]}]{d.action.value}[/]", d.variant or "-", escape(d.reason))
    return table


def select(read: Reader, requested: str, series: Series | None = None) -> PatchPlan:
    """Probe the tree through ``read`` and decide which patches to apply (``--patches`` text) from
    ``series`` (the configured one when not given)."""
    plan = plan_patches(read, series or load_series(), parse_requested(requested))
    return PatchPlan(plan.decisions, plan.patches, requested)
