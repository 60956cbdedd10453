"""Glue between the build and the patch series: what a build applies, and how it is recorded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.build import patches


@dataclass(frozen=True)
class AppliedPatch:
    change: str
    variant: str
    path: Path
    sha256: str


@dataclass(frozen=True)
class PatchSelection:
    requested: str
    applied: tuple[AppliedPatch, ...]
    plan: patches.PatchPlan

    @property
    def digests(self) -> list[str]:
        return [f"{p.change}:{p.variant}:{p.sha256}" for p in self.applied]

    def summary(self) -> str:
        if not self.applied:
            return f"none applied (--patches {self.requested})"
        return ", ".join(f"{p.change} [{p.variant}]" for p in self.applied) + f" (--patches {self.requested})"

    def manifest(self) -> list[dict[str, Any]]:
        return [
            {
                "id": p.change,
                "variant": p.variant,
                "file": f"patches/{p.path.parent.name}/{p.path.name}",
                "sha256": p.sha256,
            }
            for p in self.applied
        ]

    def decisions(self) -> list[dict[str, str]]:
        return [
            {"change": d.change, "action": d.action.value, "variant": d.variant or "", "reason": d.reason}
            for d in self.plan.decisions
        ]


def select(read: Callable[[str], str | None], requested: str, *, rev: str = "") -> PatchSelection:
    """Probe the tree through ``read`` (never version numbers) and decide which patches to apply."""
    plan = patches.plan_patches(read, patches.load_series(), patches.parse_requested(requested))
    applied = tuple(AppliedPatch(p.change, p.variant, p.path, p.sha256) for p in plan.patches)
    return PatchSelection(requested=requested, applied=applied, plan=plan)
