"""The one way every task gets a build: plan, look it up, build it if it is missing."""

from __future__ import annotations

from pystats_harness.build.cache import CacheEntry, lookup
from pystats_harness.build.execute import execute
from pystats_harness.build.plan import plan_build
from pystats_harness.errors import NotBuilt
from pystats_harness.infra.context import Context


def ensure_build(ctx: Context, rev: str, patches: str = "auto") -> CacheEntry:
    """The cached build of ``rev``, built first if needed (``--patches auto`` fails on a fingerprint mismatch)."""
    return obtain_build(ctx, rev, patches)[0]


def obtain_build(ctx: Context, rev: str, patches: str = "auto") -> tuple[CacheEntry, bool]:
    """:func:`ensure_build`, and whether a build ran (False: a build-cache hit)."""
    plan = plan_build(ctx, rev, patches)
    entry = lookup(ctx.settings.builds_dir, plan.key)
    if entry is not None:
        return entry, False
    ctx.reporter.info(f"building {rev} ({plan.commit.short}) first")
    return execute(ctx, plan, verify_strict=patches == "auto"), True


def find_build(ctx: Context, rev: str, patches: str = "auto") -> CacheEntry:
    """The cached build of ``rev``, or NotBuilt saying how to make it."""
    plan = plan_build(ctx, rev, patches)
    entry = lookup(ctx.settings.builds_dir, plan.key)
    if entry is None:
        raise NotBuilt(
            f"no cached build of {rev} ({plan.commit.short}, --patches {patches}); run `invoke build --rev {rev}` first"
        )
    return entry
