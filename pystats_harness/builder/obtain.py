"""The one door to a build. Every caller asks here:

* :func:`plan_for`: read what planning a :class:`~pystats_harness.builder.recipe.Recipe` needs (the
  commit's tree through the mirror, the patch series, the configure flags, the builder image's id, the
  configuration it names) and plan (pure, :func:`~pystats_harness.builder.plan.plan_build`); a revision
  that cannot build the configuration is refused as soon as its tree is read, before the engine is asked
  for anything (exit 29);
* :func:`obtain`: the planned build from the cache, built first when missing, and whether a build ran.
  Two callers only: the unit runner (:mod:`pystats_harness.dispatch.runner`, every measurement, here or
  on a cluster worker) and ``invoke build`` (``tests/unit/test_layout.py`` holds that);
* :func:`existing`: a build that must already be there (``invoke run``, ``verify``, ``stats --rev``):
  NotBuilt (exit 13) saying how to make it, never a build.

A revision is resolved into a :class:`~pystats_harness.infra.commits.CommitInfo` once, by the caller
(the task, or the client of a cluster run); nothing here resolves it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from pystats_harness.builder import repairs
from pystats_harness.builder.cache import CacheEntry, lookup
from pystats_harness.builder.configurations import choose, load_configurations, variant_image
from pystats_harness.builder.execute import execute
from pystats_harness.builder.plan import BuildPlan, PlanInputs, plan_build
from pystats_harness.builder.recipe import Recipe
from pystats_harness.builder.series import load_series
from pystats_harness.configure_flags import load_configure_flags, load_tree_flags
from pystats_harness.errors import BuildFailed, NotBuilt, PatchError, VerificationFailed
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror


@dataclass(frozen=True)
class Obtained:
    """A build in the cache, and whether this call built it (False: a build-cache hit)."""

    plan: BuildPlan
    entry: CacheEntry
    built: bool


def plan_inputs(ctx: Context, recipe: Recipe) -> PlanInputs:
    """What planning ``recipe`` reads, read now (the image ids need the engine; the tree, the mirror).
    An unknown configuration is ConfigError (exit 2) naming the known ones; a revision that cannot build
    it is refused here already (exit 29), before the engine is asked for anything."""
    settings, commit = ctx.settings, recipe.commit
    mirror = Mirror(settings.mirror_dir)
    known = load_configurations()
    configuration = known.get(recipe.config)

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
        recipe.patches,
        load_configure_flags(settings.configure_flags_file),
        settings.image,
        engine.require_image(ctx.docker, settings.image),
        settings.effective_make_jobs,
        configuration,
        known.llvm,
        variants,
        (*((repair,) if repair else ()), *recipe.extra),
        load_tree_flags(settings.configure_flags_file),
    )


def plan_for(ctx: Context, recipe: Recipe) -> BuildPlan:
    """The plan of ``recipe``'s build: its patches, configuration and upstream changes (a bisect's
    revert), and its repair (setting ``repairs``)."""
    return plan_build(plan_inputs(ctx, recipe))


def cached(ctx: Context, plan: BuildPlan) -> CacheEntry | None:
    """The planned build if the cache holds it complete."""
    return lookup(ctx.settings.builds_dir, plan.key)


def existing(ctx: Context, plan: BuildPlan) -> CacheEntry:
    """The planned build, which must be in the cache already: NotBuilt (exit 13) saying how to make it."""
    entry = cached(ctx, plan)
    if entry is not None:
        return entry
    commit, config = plan.commit, plan.configuration
    option = "" if config.is_default else f" --config {config.name}"
    raise NotBuilt(
        f"no cached build of {commit.rev} ({commit.short}, --patches {plan.patches.requested}{option}); "
        f"run `invoke build --rev {commit.rev}{option}` first"
    )


def obtain(ctx: Context, plan: BuildPlan) -> Obtained:
    """The planned build, built first when missing (``--patches auto`` fails on a fingerprint mismatch)."""
    entry = cached(ctx, plan)
    if entry is not None:
        return Obtained(plan, entry, False)
    commit = plan.commit
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
