"""A build plan for v3.13.5 made by hand (no mirror, no engine), for the tests of what a plan drives."""

from __future__ import annotations

from pystats_harness.builder import patches
from pystats_harness.builder.plan import BuildPlan
from pystats_harness.infra.commits import CommitInfo

SHA = "a" * 40


def plan(*, flags: tuple[str, ...] = ("--with-lto=no",), jobs: int = 3) -> BuildPlan:
    """v3.13.5 (as :data:`SHA`), no patches, ``flags`` and ``make -j{jobs}``, a made-up image and key."""
    patch_plan = patches.PatchPlan(decisions=(), patches=(), requested="none")
    commit = CommitInfo("v3.13.5", SHA, "2025-06-11T00:00:00+00:00", "Python 3.13.5")
    return BuildPlan(commit, patch_plan, flags, "builder:tag", "sha256:" + "b" * 64, "k" * 24, jobs)
