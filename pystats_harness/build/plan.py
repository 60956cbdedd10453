"""What a build will do, decided before anything is done (shown by ``invoke build --dry-run``)."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from pystats_harness.build import patches
from pystats_harness.build.cache import cache_key, lookup
from pystats_harness.config import load_configure_flags
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo, Mirror
from pystats_harness.infra.runner import PREFIX_IN_CONTAINER


@dataclass(frozen=True)
class BuildPlan:
    """Everything a build will do: the commit, its patches, flags, image, and the cache key."""

    commit: CommitInfo
    patches: patches.PatchPlan
    configure_flags: tuple[str, ...]
    image_tag: str
    image_id: str
    key: str
    cache_hit: bool
    jobs: int

    @property
    def all_configure_args(self) -> tuple[str, ...]:
        return (f"--prefix={PREFIX_IN_CONTAINER}", "--enable-pystats", *self.configure_flags)


def plan_build(ctx: Context, rev: str, requested_patches: str = "auto") -> BuildPlan:
    """Resolve ``rev``, select patches by probing its tree, and compute the cache key."""
    settings = ctx.settings
    mirror = Mirror(settings.mirror_dir)
    info = mirror.resolve(rev)
    selection = patches.select(lambda path: mirror.read_file(info.sha, path), requested_patches)
    flags = load_configure_flags(settings.configure_flags_file)
    image_id = engine.require_image(ctx.docker, settings.image)
    key = cache_key(info.sha, selection.digests, flags, image_id)
    hit = lookup(settings.builds_dir, key) is not None
    return BuildPlan(info, selection, flags, settings.image, image_id, key, hit, settings.make_jobs)


def to_text(plan: BuildPlan) -> str:
    c = plan.commit
    return "\n".join(
        (
            f"revision   {c.rev} -> {c.sha}",
            f"commit     {c.date}  {c.subject[:70]}",
            f"patches    {plan.patches.summary()}",
            f"image      {plan.image_tag} ({plan.image_id[:19]})",
            f"configure  {' '.join(plan.all_configure_args)}",
            f"jobs       make -j{plan.jobs}",
            f"cache key  {plan.key}",
            f"cache      {'hit: nothing to build' if plan.cache_hit else 'miss: will build'}",
        )
    )


def build_group(plan: BuildPlan, configure_ac: str) -> str:
    """Builds that may share configure results and a build directory: same image, flags, X.Y."""
    m = re.search(r"PYTHON_VERSION\]?,\s*\[?(\d+\.\d+)", configure_ac)
    version = m.group(1) if m else "unknown"
    digest = hashlib.sha256(json.dumps([plan.image_id, plan.configure_flags, version]).encode()).hexdigest()[:16]
    return f"{version}-{digest}"
