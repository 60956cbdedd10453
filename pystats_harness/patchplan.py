"""Glue between the build and the patch series: what a build applies, and how it is recorded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import RevisionUnsupported


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
    decisions: tuple[tuple[str, str, str], ...]  # (change, action, reason)

    @property
    def digests(self) -> list[str]:
        return [f"{p.change}:{p.variant}:{p.sha256}" for p in self.applied]

    def summary(self) -> str:
        if not self.applied:
            return f"none applied (--patches {self.requested})"
        return ", ".join(f"{p.change} [{p.variant}]" for p in self.applied) + f" (--patches {self.requested})"

    def manifest(self) -> list[dict[str, Any]]:
        return [
            {"id": p.change, "variant": p.variant, "file": str(p.path.name), "sha256": p.sha256}
            for p in self.applied
        ]


def select(read: Callable[[str], str | None], requested: str, *, rev: str = "") -> PatchSelection:
    """Probe the tree through ``read`` and decide which patches to apply."""
    configure_ac = read("configure.ac") or ""
    if "enable-pystats" not in configure_ac:
        raise RevisionUnsupported(
            f"revision {rev or '?'} has no --enable-pystats (added in CPython 3.11.0a4); pick a newer revision"
        )
    return PatchSelection(requested=requested, applied=(), decisions=())
