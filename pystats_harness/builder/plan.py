"""What a build will do, decided before anything is done (shown by ``invoke build --dry-run``): a pure
function of :class:`PlanInputs`, which :mod:`pystats_harness.builder.obtain` reads first."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from pystats_harness.builder import patches
from pystats_harness.builder.cache import cache_key
from pystats_harness.builder.series import Reader, Series
from pystats_harness.infra.mirror import CommitInfo
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
    jobs: int

    @property
    def all_configure_args(self) -> tuple[str, ...]:
        return (f"--prefix={PREFIX_IN_CONTAINER}", "--enable-pystats", *self.configure_flags)

    @property
    def verify_strict(self) -> bool:
        """``--patches auto`` promises fixed pystats: a fingerprint that differs fails the build."""
        return self.patches.requested == "auto"


@dataclass(frozen=True)
class PlanInputs:
    """What a plan is made from, read before planning (:func:`pystats_harness.builder.obtain.plan_for`):
    the commit (resolved once), a reader of its tree (the patch probes), the patch series, the
    configure flags and the builder image pinned by id."""

    commit: CommitInfo
    read_tree: Reader
    series: Series
    requested_patches: str
    configure_flags: tuple[str, ...]
    image_tag: str
    image_id: str
    jobs: int


def plan_build(inputs: PlanInputs) -> BuildPlan:
    """Select patches by probing the tree and compute the cache key; reads nothing but ``inputs``."""
    selection = patches.select(inputs.read_tree, inputs.requested_patches, inputs.series)
    key = cache_key(inputs.commit.sha, selection.digests, inputs.configure_flags, inputs.image_id)
    return BuildPlan(
        inputs.commit, selection, inputs.configure_flags, inputs.image_tag, inputs.image_id, key, inputs.jobs
    )


def to_text(plan: BuildPlan, *, cached: bool) -> str:
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
            f"cache      {'hit: nothing to build' if cached else 'miss: will build'}",
        )
    )


def build_group(plan: BuildPlan, configure_ac: str) -> str:
    """Builds that may share configure results and a build directory: same image, flags, X.Y."""
    m = re.search(r"PYTHON_VERSION\]?,\s*\[?(\d+\.\d+)", configure_ac)
    version = m.group(1) if m else "unknown"
    digest = hashlib.sha256(json.dumps([plan.image_id, plan.configure_flags, version]).encode()).hexdigest()[:16]
    return f"{version}-{digest}"
