"""TEMP STUB (helper C replaces)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pystats_harness.build.cache import CacheEntry
from pystats_harness.infra.context import Context


@dataclass(frozen=True)
class SiteReady:
    path: Path


@dataclass(frozen=True)
class SiteSkipped:
    package: str
    reason: str


def prepare_site(ctx: Context, entry: CacheEntry, benchmark_dir: str) -> SiteReady | SiteSkipped:
    return SiteSkipped("requirements", "stub")
