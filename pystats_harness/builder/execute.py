"""`invoke build --rev REV`, the acting half: worktree → patches → container build → fingerprint → cache.

The plan (:mod:`pystats_harness.builder.plan`) decided everything; :func:`execute` carries it out. An
entry becomes visible only once its completion marker is written, after its manifest.
"""

from __future__ import annotations

import errno
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder import integrity, lanes, locks, probes, prune, remote
from pystats_harness.builder.cache import CacheEntry, commit, lookup, staging
from pystats_harness.builder.plan import BuildPlan, build_group
from pystats_harness.builder.record import copy_source_subset, manifest, patched_files
from pystats_harness.builder.script import BuildLog, EventKind, build_script
from pystats_harness.errors import BuildFailed, DiskFull, HarnessError, Interrupted
from pystats_harness.infra import engine
from pystats_harness.infra.apply import apply_patches
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.infra.mirror import Mirror
from pystats_harness.infra.runner import PREFIX_IN_CONTAINER, SOURCE_IN_CONTAINER


@dataclass(frozen=True)
class Workspace:
    """Where one build happens: the patched worktree, the staging entry and the lane's build dir."""

    worktree: Path
    staged: Path
    lane: lanes.Lane
    confcache: Path
    ccache_remote: remote.Remote = remote.NO_REMOTE


def container_spec(ctx: Context, plan: BuildPlan, ws: Workspace) -> engine.ContainerSpec:
    """Pure: the build container (sources read-only, no network, the persistent ccache volume; with a
    reachable ``ccache_remote`` also its Redis, over the host's network).

    Confined like a run except for its user: it stays root to write the root-owned bind mounts, but
    without capabilities. The root file system is read-only (everything is written to the mounts
    and the in-memory /tmp); memory and processes are limited by their own, larger settings.
    """
    settings = ctx.settings
    return engine.ContainerSpec(
        image=plan.image_id,
        command=["bash", "-c", build_script(plan, reuse=ws.lane.reuse)],
        mounts=(
            engine.Mount(str(ws.worktree), SOURCE_IN_CONTAINER, read_only=True),
            engine.Mount(str(ws.lane.build_dir), "/build"),
            engine.Mount(str(ws.staged / "install"), PREFIX_IN_CONTAINER),
            engine.Mount(settings.ccache_volume, "/ccache", volume=True),
            engine.Mount(str(ws.confcache), "/confcache"),
        ),
        env={"CCACHE_DIR": "/ccache", "CCACHE_BASEDIR": "/", "CCACHE_NOHASHDIR": "1", **ws.ccache_remote.env},
        host_network=bool(ws.ccache_remote.url),
        workdir="/build",
        name_prefix="pystats-harness-build",
        read_only_root=True,
        tmpfs=("/tmp",),
        cap_drop=("ALL",),
        no_new_privileges=True,
        memory=settings.build_memory,
        pids=settings.build_pids,
    )


def _run_build_container(ctx: Context, plan: BuildPlan, ws: Workspace) -> dict[str, Any]:
    """Run configure/make/install in a container; returns timings and facts from the log."""
    settings, reporter = ctx.settings, ctx.reporter
    (ws.staged / "install").mkdir()
    engine.ensure_volume(ctx.docker, settings.ccache_volume)
    log, log_path = BuildLog(), ws.staged / "build.log"
    spec = container_spec(ctx, plan, ws)
    with (
        log_path.open("w") as fh,
        reporter.live(f"building {plan.commit.short}"),
        engine.Container(ctx.docker, spec, keep=settings.keep_containers) as container,
    ):
        for line in container.stream():
            fh.write(line + "\n")
            for event in log.feed(line, time.perf_counter()):
                if event.kind is EventKind.PHASE_STARTED:
                    reporter.phase(event.text)
                elif event.kind is EventKind.PHASE_FINISHED:
                    reporter.phase(event.text, event.seconds)
                elif event.kind is EventKind.NOTE:
                    reporter.warn(event.text)
                else:
                    reporter.line(event.text)
        status = container.wait()
        oom_killed = status != 0 and container.oom_killed()
    if status != 0:
        failed_log = settings.paths.build_logs / f"{plan.key}-{time.strftime('%Y%m%dT%H%M%S')}.log"
        failed_log.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(log_path, failed_log)
        raise BuildFailed(
            phase=log.phase or "build",
            commit=plan.commit.short,
            status=status,
            log_tail=log.tail,
            log_path=failed_log,
            memory_limit=settings.build_memory if oom_killed else None,
        )
    return log.facts()


def _compile(ctx: Context, plan: BuildPlan, mirror: Mirror, worktree: Path, staged: Path, t0: float) -> dict[str, Any]:
    """Patches, a lane, the build container; returns the facts for the manifest."""
    settings = ctx.settings
    patch_paths = [p.path for p in plan.patches.patches]
    upstream_dir = staged / "upstream"
    for u in plan.upstream:  # kept with the build, applied after the series
        upstream_dir.mkdir(exist_ok=True)
        (upstream_dir / u.file_name).write_text(u.text)
        patch_paths.append(upstream_dir / u.file_name)
    patched = patched_files(patch_paths)
    apply_patches(worktree, patch_paths)
    copied = copy_source_subset(worktree, staged / "src")
    group = build_group(plan, (worktree / "configure.ac").read_text(errors="replace"))
    confcache = settings.configure_cache_dir / group
    confcache.mkdir(parents=True, exist_ok=True)
    with lanes.acquire(settings.paths.lanes, group, mirror, plan.commit.sha, worktree, patched) as lane:
        checkout_s = time.perf_counter() - t0
        ctx.reporter.phase("checkout", checkout_s)
        shared = remote.resolve(settings.ccache_remote, ctx.reporter)
        facts = _run_build_container(ctx, plan, Workspace(worktree, staged, lane, confcache, shared))
        lane.mark_ok(plan.commit.sha, patched)
    facts["seconds"]["checkout"] = round(checkout_s, 2)
    facts["build_dir"] = {"reused": lane.reuse, "reason": lane.reason, "group": group}
    facts["source_files"] = copied
    return facts


def _fingerprint(ctx: Context, plan: BuildPlan, entry: CacheEntry) -> tuple[probes.ProbeReport, float]:
    t1 = time.perf_counter()
    ctx.reporter.phase("fingerprint")
    config = plan.configuration
    report = probes.collect(ctx, entry, image=plan.image_id, configuration=config.name, exempt=dict(config.exempt))
    probes.capture_names(ctx, entry, plan.image_id)
    seconds = time.perf_counter() - t1
    ctx.reporter.phase("fingerprint", seconds)
    return report, seconds


def _build(ctx: Context, plan: BuildPlan) -> CacheEntry:
    """Checkout, patches, compile, fingerprint, manifest, contents; the marker is written last."""
    settings = ctx.settings
    mirror = Mirror(settings.mirror_dir)
    built_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ctx.reporter.phase("checkout")
    t0 = time.perf_counter()
    with (
        staging(settings.builds_dir, plan.key) as staged,
        mirror.worktree(plan.commit.sha, settings.worktrees_dir) as wt,
    ):
        facts = {**_compile(ctx, plan, mirror, wt, staged, t0), "built_at": built_at}
        entry = CacheEntry(staged)
        switch = plan.configuration.runtime()
        if switch["args"] or switch["env"]:  # every run of this build uses it, the fingerprint's first
            write_json_atomic(entry.runtime_path, switch, indent=2, sort_keys=True)
        report, seconds = _fingerprint(ctx, plan, entry)
        facts["seconds"]["fingerprint"] = round(seconds, 2)
        doc = manifest(plan, facts, report, strict=plan.verify_strict)
        write_json_atomic(staged / "manifest.json", doc, indent=2, sort_keys=True)
        probes.enforce(ctx, report, strict=plan.verify_strict, what=f"{plan.commit.rev} ({plan.commit.short})")
        ctx.reporter.phase("commit")
        t2 = time.perf_counter()
        integrity.record(staged)
        committed = commit(settings.builds_dir, plan.key, staged)
        ctx.reporter.phase("commit", time.perf_counter() - t2)
        return committed


def _no_space(exc: BaseException) -> bool:
    """The build failed because a file system filled up (host side or inside the container)."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    text = "\n".join(exc.log_tail) if isinstance(exc, BuildFailed) else str(exc)
    if isinstance(exc, HarnessError) and exc.command is not None:
        text += exc.command.stderr_tail
    return "No space left on device" in text


def execute(ctx: Context, plan: BuildPlan) -> CacheEntry:
    """Build ``plan`` into the cache (no-op on a hit). The entry is valid only after its marker.

    One invocation builds a key at a time; another that asks for the same build waits for it (and
    says whose) and then takes the cache hit."""
    settings = ctx.settings
    hit = lookup(settings.builds_dir, plan.key)
    if hit is not None:
        return hit
    what = f"{plan.commit.rev} ({plan.commit.short})"

    def waiting(owner: locks.Owner | None) -> None:
        whose = owner.describe() if owner else "another invocation"
        ctx.reporter.info(f"waiting for the build of {what} by {whose}")

    with locks.building(settings.builds_dir, plan.key, f"build of {what}", waiting):
        hit = lookup(settings.builds_dir, plan.key)
        if hit is not None:
            ctx.reporter.info(f"{what} was built meanwhile: cache hit")
            return hit
        try:
            entry = _build(ctx, plan)
        except KeyboardInterrupt:
            raise Interrupted("build interrupted; no container, worktree or cache entry was left behind") from None
        except (OSError, HarnessError) as exc:
            if _no_space(exc):
                raise DiskFull(settings.cache_dir, f"building {what}") from None
            raise
    entry = lookup(settings.builds_dir, plan.key) or entry  # in use by this invocation from now on
    prune.after_build(ctx)
    return entry
