"""The one door to a build. Every caller (the build, run, verify and stats tasks, validate, collect, a
measurement at a commit, a unit on a cluster worker) asks here:

* :func:`plan_for`: read what planning needs (the commit's tree through the mirror, the patch series,
  the configure flags, the builder image's id, the configuration ``--config`` names) and plan (pure,
  :func:`~pystats_harness.builder.plan.plan_build`); a revision that cannot build the configuration is
  refused as soon as its tree is read, before the engine is asked for anything (exit 29);
* :func:`obtain`: the planned build from the cache, built first when missing (or NotBuilt, exit 13,
  when the caller asked not to build), and whether a build ran.

A revision is resolved into a :class:`~pystats_harness.infra.mirror.CommitInfo` once, by the caller
(the task, or the client of a cluster run); nothing here resolves it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from pystats_harness.builder import repairs
from pystats_harness.builder.cache import CacheEntry, lookup
from pystats_harness.builder.configurations import DEFAULT, choose, load_configurations, variant_image
from pystats_harness.builder.execute import execute
from pystats_harness.builder.plan import BuildPlan, PlanInputs, plan_build
from pystats_harness.builder.series import load_series
from pystats_harness.builder.upstream import UpstreamPatch
from pystats_harness.config import load_configure_flags
from pystats_harness.errors import BuildFailed, NotBuilt, PatchError, VerificationFailed
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo, Mirror


@dataclass(frozen=True)
class Obtained:
    """A build in the cache, and whether this call built it (False: a build-cache hit)."""

    plan: BuildPlan
    entry: CacheEntry
    built: bool


def plan_inputs(
    ctx: Context,
    commit: CommitInfo,
    requested_patches: str = "auto",
    config: str = DEFAULT,
    extra: tuple[UpstreamPatch, ...] = (),
) -> PlanInputs:
    """What planning ``commit`` reads, read now (the image ids need the engine; the tree, the mirror).
    An unknown configuration is ConfigError (exit 2) naming the known ones; a revision that cannot build
    it is refused here already (exit 29), before the engine is asked for anything."""
    settings = ctx.settings
    mirror = Mirror(settings.mirror_dir)
    known = load_configurations()
    configuration = known.get(config)

    def read(path: str) -> str | None:
        return mirror.read_file(commit.sha, path)

    chosen = choose(configuration, read, known.llvm, f"{commit.rev} ({commit.short})")  # the plan chooses again
    variants: dict[str, str] = {}
    if chosen.llvm is not None:
        tag = variant_image(settings.image, chosen.llvm)
        if (found := engine.image_id(ctx.docker, tag)) is not None:
            variants[tag] = found
    repair = repairs.planned(mirror, commit, settings.repairs, settings.paths.repairs_found)
    return PlanInputs(
        commit,
        read,
        load_series(),
        requested_patches,
        load_configure_flags(settings.configure_flags_file),
        settings.image,
        engine.require_image(ctx.docker, settings.image),
        settings.make_jobs,
        configuration,
        known.llvm,
        variants,
        (*((repair,) if repair else ()), *extra),
    )


def plan_for(
    ctx: Context,
    commit: CommitInfo,
    requested_patches: str = "auto",
    config: str = DEFAULT,
    extra: tuple[UpstreamPatch, ...] = (),
) -> BuildPlan:
    """The plan of ``commit``'s build of configuration ``config`` with ``--patches requested_patches``, its
    repair (setting ``repairs``) and the upstream changes ``extra`` (a bisect's revert)."""
    return plan_build(plan_inputs(ctx, commit, requested_patches, config, extra))


def cached(ctx: Context, plan: BuildPlan) -> CacheEntry | None:
    """The planned build if the cache holds it complete."""
    return lookup(ctx.settings.builds_dir, plan.key)


def obtain(ctx: Context, plan: BuildPlan, *, build_missing: bool = True) -> Obtained:
    """The planned build, built first when missing (``--patches auto`` fails on a fingerprint mismatch);
    with ``build_missing=False`` a missing build is NotBuilt saying how to make it."""
    entry = cached(ctx, plan)
    if entry is not None:
        return Obtained(plan, entry, False)
    commit = plan.commit
    if not build_missing:
        config = plan.configuration
        option = "" if config.is_default else f" --config {config.name}"
        raise NotBuilt(
            f"no cached build of {commit.rev} ({commit.short}, --patches {plan.patches.requested}{option}); "
            f"run `invoke build --rev {commit.rev}{option}` first"
        )
    ctx.reporter.info(f"building {commit.rev} ({commit.short})")
    try:
        return Obtained(plan, execute(ctx, plan), True)
    except BuildFailed as exc:
        repaired = _repair(ctx, plan, exc)
        if repaired is None:
            raise
        return repaired


def _repair(ctx: Context, plan: BuildPlan, failed: BuildFailed) -> Obtained | None:
    """After ``plan`` failed to compile: its build with an upstream repair found by the search (the first
    that builds and passes its fingerprint), or None with what was tried recorded on ``failed``."""
    settings = ctx.settings
    if plan.repair is not None or settings.repairs == "none" or failed.memory_limit or plan.upstream:
        return None
    failure = repairs.compile_failure(failed.log_path.read_text(errors="replace"))
    if not failure.files:
        return None
    commit, tried = plan.commit, []
    for candidate in repairs.candidates(Mirror(settings.mirror_dir), commit, failure):
        repaired = plan.with_upstream(candidate)
        ctx.reporter.warn(
            f"{commit.short} does not compile with pystats ({', '.join(failure.files)}); "
            f"building it {candidate.describe()}"
        )
        try:
            entry = execute(ctx, repaired)
        except (BuildFailed, PatchError, VerificationFailed) as exc:
            tried.append(f"{candidate.sha[:10]} ({type(exc).__name__})")
            continue
        repairs.remember(settings.paths.repairs_found, commit, candidate)
        return Obtained(repaired, entry, True)
    failed.no_repair(failure.files, tuple(tried))
    return None
