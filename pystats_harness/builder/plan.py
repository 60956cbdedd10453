"""What a build will do, decided before anything is done (shown by ``invoke build --dry-run``): a pure
function of :class:`PlanInputs`, which :mod:`pystats_harness.builder.obtain` reads first."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from pystats_harness.builder import configurations, patches
from pystats_harness.builder.cache import cache_key
from pystats_harness.builder.configurations import DEFAULT_CHOSEN, Chosen, Configuration, Llvm
from pystats_harness.builder.series import Reader, Series
from pystats_harness.builder.upstream import Kind, UpstreamPatch
from pystats_harness.configure_flags import TreeFlags
from pystats_harness.errors import ImageError
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.runner import PREFIX_IN_CONTAINER


@dataclass(frozen=True)
class BuildPlan:
    """Everything a build will do: the commit, its patches, flags, image, configuration, and the cache key."""

    commit: CommitInfo
    patches: patches.PatchPlan
    configure_flags: tuple[str, ...]
    image_tag: str
    image_id: str
    key: str
    jobs: int
    configuration: Chosen = DEFAULT_CHOSEN
    upstream: tuple[UpstreamPatch, ...] = ()  # repairs and reverts, applied after the series

    @property
    def repair(self) -> UpstreamPatch | None:
        return next((u for u in self.upstream if u.kind is Kind.REPAIR), None)

    def with_upstream(self, *extra: UpstreamPatch) -> BuildPlan:
        """This plan with more upstream changes (its own cache key)."""
        upstream = (*self.upstream, *extra)
        return replace(
            self,
            upstream=upstream,
            key=_key(self.commit, self.patches, self.configure_flags, self.image_id, self.configuration, upstream),
        )

    @property
    def all_configure_args(self) -> tuple[str, ...]:
        extra = self.configuration.flags
        return (f"--prefix={PREFIX_IN_CONTAINER}", "--enable-pystats", *self.configure_flags, *extra)

    @property
    def verify_strict(self) -> bool:
        """``--patches auto`` promises fixed pystats: a fingerprint that differs fails the build."""
        return self.patches.requested == "auto"


@dataclass(frozen=True)
class PlanInputs:
    """What a plan is made from, read before planning (:func:`pystats_harness.builder.obtain.plan_for`):
    the commit (resolved once), a reader of its tree (the patch and configuration probes), the patch
    series, the configure flags, the builder image pinned by id, the configuration asked for, the LLVM
    versions Debian has, and the ids of the builder image's LLVM variants present (tag -> id)."""

    commit: CommitInfo
    read_tree: Reader
    series: Series
    requested_patches: str
    configure_flags: tuple[str, ...]
    image_tag: str
    image_id: str
    jobs: int
    configuration: Configuration | None = None  # None: the default configuration
    llvm: Llvm = field(default_factory=Llvm)
    variant_images: Mapping[str, str] = field(default_factory=dict)
    upstream: tuple[UpstreamPatch, ...] = ()  # read from the mirror: the repair this revision needs, a revert
    tree_flags: tuple[TreeFlags, ...] = ()  # configs/configure.toml [[when_tree_has]]


def flags_for_tree(flags: tuple[str, ...], when: tuple[TreeFlags, ...], read_tree: Reader) -> tuple[str, ...]:
    """Pure but for reading the tree: ``flags`` and those of each ``when`` whose path the tree has."""
    return (*flags, *(f for w in when if read_tree(w.path) is not None for f in w.flags))


def _image(inputs: PlanInputs, chosen: Chosen) -> tuple[str, str]:
    """The builder image (tag, id) of the chosen configuration: its LLVM variant when it needs one."""
    if chosen.llvm is None:
        return inputs.image_tag, inputs.image_id
    tag = configurations.variant_image(inputs.image_tag, chosen.llvm)
    found = inputs.variant_images.get(tag)
    if found is None:
        raise ImageError(
            f"configuration {chosen.name} at {inputs.commit.rev} builds with LLVM {chosen.llvm}: its builder image "
            f"{tag} is missing; make it with `invoke image --llvm {chosen.llvm}`"
        )
    return tag, found


def plan_build(inputs: PlanInputs) -> BuildPlan:
    """Select patches and the configuration's form by probing the tree and compute the cache key (the
    default configuration adds nothing to it); reads nothing but ``inputs``."""
    selection = patches.select(inputs.read_tree, inputs.requested_patches, inputs.series)
    chosen = DEFAULT_CHOSEN
    if inputs.configuration is not None:
        what = f"{inputs.commit.rev} ({inputs.commit.short})"
        chosen = configurations.choose(inputs.configuration, inputs.read_tree, inputs.llvm, what)
    tag, image_id = _image(inputs, chosen)
    flags = flags_for_tree(inputs.configure_flags, inputs.tree_flags, inputs.read_tree)
    key = _key(inputs.commit, selection, flags, image_id, chosen, inputs.upstream)
    return BuildPlan(
        commit=inputs.commit,
        patches=selection,
        configure_flags=flags,
        image_tag=tag,
        image_id=image_id,
        key=key,
        jobs=inputs.jobs,
        configuration=chosen,
        upstream=inputs.upstream,
    )


def _key(
    commit: CommitInfo,
    selection: patches.PatchPlan,
    flags: tuple[str, ...],
    image_id: str,
    chosen: Chosen,
    upstream: tuple[UpstreamPatch, ...],
) -> str:
    """The cache key: an upstream change is one more patch digest (none: the key builds always had)."""
    digests = [*selection.digests, *(u.digest for u in upstream)]
    return cache_key(commit.sha, digests, flags, image_id, chosen.key_part())


def to_text(plan: BuildPlan, *, cached: bool) -> str:
    c = plan.commit
    return "\n".join(
        (
            f"revision   {c.rev} -> {c.sha}",
            f"commit     {c.date}  {c.subject[:70]}",
            f"patches    {plan.patches.summary()}",
            *(f"upstream   {u.describe()}: {u.subject[:60]}; {u.how}" for u in plan.upstream),
            f"config     {plan.configuration.describe()}",
            f"image      {plan.image_tag} ({plan.image_id[:19]})",
            f"configure  {' '.join(plan.all_configure_args)}",
            f"jobs       make -j{plan.jobs}",
            f"cache key  {plan.key}",
            f"cache      {'hit: nothing to build' if cached else 'miss: will build'}",
        )
    )


def build_group(plan: BuildPlan, configure_ac: str) -> str:
    """Builds that may share configure results and a build directory: same image, flags (the
    configuration's included), X.Y."""
    m = re.search(r"PYTHON_VERSION\]?,\s*\[?(\d+\.\d+)", configure_ac)
    version = m.group(1) if m else "unknown"
    flags = [*plan.configure_flags, *plan.configuration.flags]
    digest = hashlib.sha256(json.dumps([plan.image_id, flags, version]).encode()).hexdigest()[:16]
    return f"{version}-{digest}"
