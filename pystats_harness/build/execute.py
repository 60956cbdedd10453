"""`invoke build --rev REV`: plan (pure), then act (worktree → patches → container build → cache)."""

from __future__ import annotations

import json
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness import __version__
from pystats_harness.build import lanes, patchplan, probes
from pystats_harness.build.cache import PREFIX_IN_CONTAINER, CacheEntry, cache_key, commit, lookup, staging, write_json
from pystats_harness.config import Settings, load_configure_flags
from pystats_harness.console import Reporter
from pystats_harness.errors import BuildFailed, Interrupted
from pystats_harness.infra import engine
from pystats_harness.infra.mirror import CommitInfo, Mirror, apply_patches

#: Files copied from the worktree into the artifact (for summarize_stats.py and name tables).
SOURCE_SUBSET = (
    "Tools/scripts/summarize_stats.py",
    "Python/specialize.c",
    "Include/pystats.h",
    "Include/cpython/pystats.h",
    "Include/opcode.h",
    "Include/opcode_ids.h",
    "Include/internal/pycore_code.h",
    "Include/internal/pycore_opcode.h",
    "Include/internal/pycore_opcode_metadata.h",
    "Include/internal/pycore_uop_ids.h",
    "Lib/opcode.py",
    "Lib/_opcode_metadata.py",
    "configure.ac",
)
PHASES = ("configure", "make", "install")


@dataclass(frozen=True)
class BuildPlan:
    """Everything a build will do, decided before anything is done."""

    commit: CommitInfo
    patches: patchplan.PatchSelection
    configure_flags: tuple[str, ...]
    image_tag: str
    image_id: str
    key: str
    cache_hit: bool
    jobs: int

    @property
    def all_configure_args(self) -> tuple[str, ...]:
        return (f"--prefix={PREFIX_IN_CONTAINER}", "--enable-pystats", *self.configure_flags)


def plan_build(settings: Settings, rev: str, patches: str = "auto", client: Any = None) -> BuildPlan:
    """Resolve ``rev``, select patches by probing its tree, and compute the cache key."""
    mirror = Mirror(settings.mirror_dir)
    info = mirror.resolve(rev)
    selection = patchplan.select(lambda path: mirror.read_file(info.sha, path), patches, rev=rev)
    flags = load_configure_flags(settings.configure_flags_file)
    client = client or engine.connect()
    image_id = engine.require_image(client, settings.image)
    key = cache_key(info.sha, selection.digests, flags, image_id)
    hit = lookup(settings.builds_dir, key) is not None
    return BuildPlan(info, selection, flags, settings.image, image_id, key, hit, settings.make_jobs)


def render_plan(plan: BuildPlan) -> list[str]:
    c = plan.commit
    lines = [
        f"revision   {c.rev} -> {c.sha}",
        f"commit     {c.date}  {c.subject[:70]}",
        f"patches    {plan.patches.summary()}",
        f"image      {plan.image_tag} ({plan.image_id[:19]})",
        f"configure  {' '.join(plan.all_configure_args)}",
        f"jobs       make -j{plan.jobs}",
        f"cache key  {plan.key}",
        f"cache      {'hit: nothing to build' if plan.cache_hit else 'miss: will build'}",
    ]
    return lines


def build_script(plan: BuildPlan, reuse: bool = False) -> str:
    """The shell script run in the build container (pure). ``reuse``: /build holds the previous
    successful build of this group (see lanes.py): configure is left to make's own rules."""
    args = " ".join(shlex.quote(a) for a in plan.all_configure_args)
    configure = f"""echo "@@phase configure"
if ! ../src/configure --cache-file=config.cache {args}; then
  if [ -f /confcache/config.cache ]; then
    echo "@@note configure failed with cached results; retrying without them"
    rm -rf /build/* && ../src/configure --cache-file=config.cache {args}
  else exit 1; fi
fi"""
    if reuse:
        configure = 'echo "@@phase configure"\necho "reusing the build directory of a previous build (configure reruns only if make says so)"'
    else:
        configure = (
            "find /build -mindepth 1 -delete\n[ -f /confcache/config.cache ] && cp /confcache/config.cache config.cache || true\n"
            + configure
        )
    return f"""set -eu
export CC="ccache gcc"
# ccache's depend mode hashes the compiler's own dependency output (-MD) instead of running the
# preprocessor on a miss: a cold build costs ~4% over plain gcc instead of ~16%.
export CCACHE_DEPEND=1 CFLAGS="-MD${{CFLAGS:+ $CFLAGS}}"
mkdir -p /tmp/py_stats /build && cd /build
echo "@@compiler $(gcc --version | head -1)"
echo "@@ccache-before $(ccache --print-stats | tr '\\t\\n' '= ' )"
{configure}
echo "@@phase make"
make -j{plan.jobs}
echo "@@phase install"
make install
cp config.cache /confcache/config.cache.new && mv /confcache/config.cache.new /confcache/config.cache
echo "@@ccache-after $(ccache --print-stats | tr '\\t\\n' '= ')"
echo "@@phase done"
"""


def build_group(plan: BuildPlan, worktree: Path) -> str:
    """Builds that may share configure results and a build directory: same image, flags, X.Y."""
    import hashlib
    import re

    ac = (worktree / "configure.ac").read_text(errors="replace")
    m = re.search(r"PYTHON_VERSION,\s*(\d+\.\d+)", ac)
    version = m.group(1) if m else "unknown"
    digest = hashlib.sha256(json.dumps([plan.image_id, plan.configure_flags, version]).encode()).hexdigest()[:16]
    return f"{version}-{digest}"


def _ccache_delta(before: str, after: str) -> dict[str, int]:
    def parse(text: str) -> dict[str, int]:
        out = {}
        for item in text.split():
            k, _, v = item.partition("=")
            if v.isdigit():
                out[k] = int(v)
        return out

    b, a = parse(before), parse(after)
    hits = sum(a.get(k, 0) - b.get(k, 0) for k in ("direct_cache_hit", "preprocessed_cache_hit"))
    misses = a.get("cache_miss", 0) - b.get("cache_miss", 0)
    return {"hits": hits, "misses": misses}


def _run_build_container(
    settings: Settings,
    plan: BuildPlan,
    worktree: Path,
    staged: Path,
    log: Path,
    reporter: Reporter,
    client: Any,
    lane: lanes.Lane,
    group: str,
) -> dict[str, Any]:
    """Run configure/make/install in a container; returns timings and facts from the log."""
    (staged / "install").mkdir()
    confcache = settings.configure_cache_dir / group
    confcache.mkdir(parents=True, exist_ok=True)
    engine.ensure_volume(client, settings.ccache_volume)
    spec = engine.ContainerSpec(
        image=plan.image_id,
        command=["bash", "-c", build_script(plan, reuse=lane.reuse)],
        mounts=(
            engine.Mount(str(worktree), "/src", read_only=True),
            engine.Mount(str(lane.build_dir), "/build"),
            engine.Mount(str(staged / "install"), PREFIX_IN_CONTAINER),
            engine.Mount(settings.ccache_volume, "/ccache", volume=True),
            engine.Mount(str(confcache), "/confcache"),
        ),
        env={"CCACHE_DIR": "/ccache", "CCACHE_BASEDIR": "/", "CCACHE_NOHASHDIR": "1"},
        workdir="/build",
        name_prefix="pystats-harness-build",
    )
    facts: dict[str, Any] = {"seconds": {}}
    phase, phase_start = None, time.perf_counter()
    tail: list[str] = []
    with (
        log.open("w") as fh,
        reporter.live(f"building {plan.commit.short}"),
        engine.Container(client, spec, keep=settings.keep_containers) as container,
    ):
        for line in container.stream():
            fh.write(line + "\n")
            if line.startswith("@@phase "):
                now = time.perf_counter()
                if phase is not None:
                    facts["seconds"][phase] = round(now - phase_start, 2)
                    reporter.phase(phase, now - phase_start)
                phase, phase_start = line.split()[1], now
                if phase != "done":
                    reporter.phase(phase)
                continue
            if line.startswith("@@compiler "):
                facts["compiler"] = line.split(" ", 1)[1]
            elif line.startswith("@@ccache-before "):
                facts["_ccache_before"] = line.split(" ", 1)[1]
            elif line.startswith("@@ccache-after "):
                facts["ccache"] = _ccache_delta(facts.pop("_ccache_before", ""), line.split(" ", 1)[1])
            elif line.startswith("@@note "):
                reporter.warn(line[7:])
            tail = ([*tail, line])[-30:]
            reporter.line(line)
        code = container.wait()
    if code != 0:
        failed_log = settings.cache_dir / "logs" / f"{plan.key}-{time.strftime('%Y%m%dT%H%M%S')}.log"
        failed_log.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(log, failed_log)
        reporter.info("\n".join(tail))
        raise BuildFailed(
            f"{phase or 'build'} failed for {plan.commit.short} (exit {code}); last 30 log lines above; full log: {failed_log}"
        )
    return facts


def patched_files(patches: list[Path]) -> list[str]:
    """Paths a list of patches touches (their builds must recompile them)."""
    files = []
    for patch in patches:
        for line in patch.read_text(errors="replace").splitlines():
            if line.startswith("+++ b/"):
                files.append(line[6:].split("\t")[0])
    return files


def _copy_source_subset(worktree: Path, dest: Path) -> list[str]:
    copied = []
    for rel in SOURCE_SUBSET:
        src = worktree / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
            copied.append(rel)
    return copied


def execute(
    settings: Settings, plan: BuildPlan, reporter: Reporter, *, verify_strict: bool, client: Any = None
) -> CacheEntry:
    """Build ``plan`` into the cache (no-op on a hit). The entry is valid only after its marker."""
    hit = lookup(settings.builds_dir, plan.key)
    if hit is not None:
        return hit
    client = client or engine.connect()
    engine.reap_orphans(client)
    mirror = Mirror(settings.mirror_dir)
    started = time.time()
    try:
        with (
            staging(settings.builds_dir, plan.key) as staged,
            mirror.worktree(plan.commit.sha, settings.worktrees_dir) as wt,
        ):
            t0 = time.perf_counter()
            patched = patched_files([p.path for p in plan.patches.applied])
            apply_patches(wt, [p.path for p in plan.patches.applied])
            copied = _copy_source_subset(wt, staged / "src")
            group = build_group(plan, wt)
            with lanes.acquire(settings.cache_dir / "lanes", group, mirror, plan.commit.sha, wt, patched) as lane:
                checkout_s = time.perf_counter() - t0
                facts = _run_build_container(
                    settings, plan, wt, staged, staged / "build.log", reporter, client, lane, group
                )
                lane.mark_ok(plan.commit.sha, patched)
            facts["seconds"]["checkout"] = round(checkout_s, 2)
            facts["build_dir"] = {"reused": lane.reuse, "reason": lane.reason}
            entry = CacheEntry(staged)
            t1 = time.perf_counter()
            reporter.phase("fingerprint")
            report = probes.collect(settings, entry, image=plan.image_id, client=client)
            probes.capture_names(settings, entry, plan.image_id, client)
            facts["seconds"]["fingerprint"] = round(time.perf_counter() - t1, 2)
            reporter.phase("fingerprint", time.perf_counter() - t1)
            manifest = {
                "harness_version": __version__,
                "key": plan.key,
                "revision": plan.commit.rev,
                "sha": plan.commit.sha,
                "commit_date": plan.commit.date,
                "subject": plan.commit.subject,
                "patches": plan.patches.manifest(),
                "configure_flags": list(plan.all_configure_args),
                "image": {"tag": plan.image_tag, "id": plan.image_id},
                "compiler": facts.get("compiler", "unknown"),
                "ccache": facts.get("ccache", {}),
                "build_dir": facts.get("build_dir", {}),
                "seconds": facts["seconds"],
                "python": report.python,
                "fingerprint": report.fingerprint,
                "verification": {"ok": report.ok, "mismatches": report.mismatches, "strict": verify_strict},
                "patch_decisions": plan.patches.decisions(),
                "source_files": copied,
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            }
            write_json(staged / "manifest.json", manifest)
            probes.enforce(
                report, strict=verify_strict, reporter=reporter, what=f"{plan.commit.rev} ({plan.commit.short})"
            )
            return commit(settings.builds_dir, plan.key, staged)
    except KeyboardInterrupt:
        raise Interrupted("build interrupted; no container, worktree or cache entry was left behind") from None
