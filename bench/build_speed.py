"""Build speed, side by side, in one run on the same source (issue: build a pystats interpreter).

    python bench/build_speed.py [--rev v3.13.5] [--jobs N] [--configs tier2,freethreading]

Prints, for the same revision and the same builder image:
  raw     configure && make && make install in a plain container (no ccache, no harness)
  cold    `invoke build` with an empty cache dir, an empty ccache volume, no configure cache
  hit     `invoke build` again (cache hit)                                goal <= 2 s
  warm    `invoke build` of a neighbouring revision (one .c file changed), warm ccache and
          cached configure results                                       goal <= 15% of cold
the ratio cold/raw (goal <= 1.10x) and the size of the cold build's cache entry as `du -s` counts it
(MiB; goal <= 100 MB). Uses a scratch cache dir and a scratch ccache volume,
both removed afterwards; the mirror is fetched from the default cache's mirror.

With ``--configs``, each named configuration (configs/configurations.toml) is then built cold too (its
own empty ccache volume, the scratch cache dir) and its cold time and entry size are printed beside the
default's; a configuration the revision cannot build prints the one line it is refused with.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contextlib

from pystats_harness.config import load_settings
from pystats_harness.configure_flags import load_configure_flags
from pystats_harness.infra import engine
from pystats_harness.infra.mirror import Mirror
from tests.support.disk import disk_mb
from tests.support.invoke_runner import invoke_env, run_invoke
from tests.support.repo import commit_files


def invoke(env: dict[str, str], *args: str, refused: list[str] | None = None) -> tuple[float, Path | None]:
    """Seconds an `invoke` call took, and the entry it built (None unless it was a cache miss); with
    ``refused``, a refusal (exit 29) is appended to it instead of ending the script."""
    start = time.perf_counter()
    proc = run_invoke(*args, env=env)
    took = time.perf_counter() - start
    if refused is not None and proc.returncode == 29:
        refused.append(proc.stderr.strip())
        return took, None
    if proc.returncode != 0:
        sys.exit(f"invoke {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    built = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("build ")]
    if built and "cache      miss" in proc.stdout:
        import json

        m = json.loads((Path(built[0]) / "manifest.json").read_text())
        phases = " ".join(f"{k} {v:.1f}" for k, v in m["seconds"].items())
        print(f"        phases: {phases}; ccache {m.get('ccache')}", flush=True)
        return took, Path(built[0])
    return took, None


def neighbour(mirror_dir: Path, rev: str) -> str:
    """A commit on top of ``rev`` that changes one C file (a comment), like a neighbouring commit."""
    show = ["git", "--git-dir", str(mirror_dir), "show", f"{rev}:Python/specialize.c"]
    text = subprocess.run(show, capture_output=True, text=True, check=True).stdout.strip()
    text += f"\n/* bench neighbour {time.time()} */\n"
    files = {"Python/specialize.c": ("100644", text)}
    return commit_files(mirror_dir, rev, files, "bench: neighbouring commit", date=None)


def raw_build(settings, rev: str, jobs: int, client) -> float:
    """configure && make && make install in the same image, plain gcc, no harness."""
    flags = " ".join(("--prefix=/opt/raw", "--enable-pystats", *load_configure_flags(settings.configure_flags_file)))
    mirror = Mirror(settings.mirror_dir)
    sha = mirror.resolve(rev).sha
    with mirror.worktree(sha, settings.worktrees_dir) as wt:
        spec = engine.ContainerSpec(
            image=settings.image,
            command=[
                "bash",
                "-c",
                f"set -e; mkdir -p /b && cd /b && /src/configure {flags} >/dev/null && make -j{jobs} >/dev/null && make install >/dev/null",
            ],
            mounts=(engine.Mount(str(wt), "/src", read_only=True),),
        )
        start = time.perf_counter()
        result = engine.run(client, spec)
        took = time.perf_counter() - start
    if result.exit_code != 0:
        sys.exit(f"raw build failed: {result.stderr[-2000:]}")
    return took


def configurations(env: dict[str, str], rev: str, names: list[str], cold: float, size: float, client) -> None:
    """Each configuration built cold (its own empty ccache volume), beside the default's cold build."""
    print(f"\n{'configuration':<16}{'cold build':>12}{'vs default':>12}{'entry':>10}")
    print(f"{'default':<16}{cold:>11.1f}s{1:>11.2f}x{size:>8.1f}MB")
    for name in names:
        volume = f"{env['INVOKE_PYSTATS_CCACHE_VOLUME']}-{name}"
        refused: list[str] = []
        try:
            took, entry = invoke(
                {**env, "INVOKE_PYSTATS_CCACHE_VOLUME": volume},
                "build",
                "--rev",
                rev,
                "--config",
                name,
                refused=refused,
            )
        finally:
            with contextlib.suppress(Exception):
                client.volumes.get(volume).remove(force=True)
        if entry is None:
            print(f"{name:<16}{'refused' if refused else 'not built'}: {' '.join(refused)[:160]}")
            continue
        print(f"{name:<16}{took:>11.1f}s{took / cold:>11.2f}x{disk_mb(entry):>8.1f}MB", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="v3.13.5")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--configs", default="", help="comma-separated configurations to build cold beside the default")
    args = ap.parse_args()
    base = load_settings({})
    client = engine.connect()
    scratch = Path(tempfile.mkdtemp(prefix="pystats-bench-"))
    volume = f"pystats-bench-ccache-{os.getpid()}"
    env = invoke_env(scratch, INVOKE_PYSTATS_CCACHE_VOLUME=volume, INVOKE_PYSTATS_JOBS=str(args.jobs))
    try:
        settings = load_settings({"cache_dir": str(scratch), "ccache_volume": volume, "jobs": str(args.jobs)})
        Mirror(settings.mirror_dir).update(str(base.mirror_dir))
        near = neighbour(settings.mirror_dir, args.rev)
        print(
            f"revision {args.rev}, neighbour {near[:10]}, make -j{settings.make_jobs}, image {settings.image}",
            flush=True,
        )
        raw = raw_build(settings, args.rev, settings.make_jobs, client)
        print(f"raw   {raw:7.1f} s", flush=True)
        cold, entry = invoke(env, "build", "--rev", args.rev)
        if entry is None:
            sys.exit("the cold build was not a cache miss")
        size = disk_mb(entry)
        print(f"cold  {cold:7.1f} s, entry {size:.1f} MB", flush=True)
        hit, _ = invoke(env, "build", "--rev", args.rev)
        print(f"hit   {hit:7.1f} s", flush=True)
        warm, _ = invoke(env, "build", "--rev", near)
        print(f"warm  {warm:7.1f} s", flush=True)
        print()
        print(f"{'measure':<34}{'value':>10}{'goal':>12}")
        print(f"{'cold invoke build / raw build':<34}{cold / raw:>9.2f}x{'<= 1.10x':>12}")
        print(f"{'cache hit':<34}{hit:>9.1f}s{'<= 2 s':>12}")
        print(f"{'warm neighbour / cold':<34}{100 * warm / cold:>9.1f}%{'<= 15%':>12}")
        print(f"{'cold build entry size (du -s)':<34}{size:>8.1f}MB{'<= 100 MB':>12}")
        if args.configs:
            configurations(env, args.rev, [n for n in args.configs.split(",") if n], cold, size, client)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        with contextlib.suppress(Exception):
            client.volumes.get(volume).remove(force=True)


if __name__ == "__main__":
    main()
