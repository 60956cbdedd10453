"""The README's main command, timed as a new user runs it (issue: a house, not a tower, item 8).

    python bench/main_command.py [--keep]

Clones this checkout (HEAD) into a scratch directory and runs, there, in a new virtual environment,

    bash scripts/bootstrap.sh && python3 -m invoke validate

with everything the harness makes fresh: an empty cache directory (mirror, builds), an empty wheelhouse
directory, an empty pip cache, new builder and base image tags (so the image is debootstrapped again), a
new ccache volume and a new release-sources directory. What it cannot make fresh is said in the output:
Debian's packages and a running Docker engine (bootstrap checks them and moves on), and pip's own
configuration (a local wheel directory, if the machine has one). Prints each step of bootstrap (its
`+` lines) with the seconds until the next (the release imports run while the image is made, so
those steps' seconds overlap), validate's seconds, the total and the load average before
and after (other work on the machine slows every step). Everything made is removed unless ``--keep``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_lines(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[int, list[tuple[float, str]]]:
    """Run ``cmd``; return its exit code and (seconds since start, line) for each output line (kept in ``log``)."""
    start = time.perf_counter()
    lines: list[tuple[float, str]] = []
    with log.open("a") as keep:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append((time.perf_counter() - start, line.rstrip()))
            keep.write(line)
        code = proc.wait()
    lines.append((time.perf_counter() - start, "(end)"))
    return code, lines


def steps(lines: list[tuple[float, str]]) -> list[tuple[str, float]]:
    """Bootstrap's `+` lines with the seconds until the next one (the first step: up to the first line)."""
    marks = [(0.0, "(start)")] + [(t, text[2:]) for t, text in lines if text.startswith("+ ")] + [lines[-1]]
    return [(name, later - at) for (at, name), (later, _) in itertools.pairwise(marks)]


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory, images and volume")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="pystats-main-command-"))
    tag = scratch.name.rsplit("-", 1)[-1].lower()
    clone, venv, log = scratch / "clone", scratch / "venv", scratch / "output.log"
    env = dict(os.environ)
    env.update(
        PATH=f"{venv / 'bin'}:{os.environ['PATH']}",
        VIRTUAL_ENV=str(venv),
        PIP_CACHE_DIR=str(scratch / "pip-cache"),
        PYSTATS_SOURCES_DIR=str(scratch / "sources"),
        INVOKE_PYSTATS_CACHE_DIR=str(scratch / "cache"),
        INVOKE_PYSTATS_WHEELHOUSE_DIR=str(scratch / "wheelhouse"),
        INVOKE_PYSTATS_IMAGE=f"pystats-harness/builder:main-command-{tag}",
        INVOKE_PYSTATS_BOOTSTRAP_IMAGE=f"pystats-harness/base:main-command-{tag}",
        INVOKE_PYSTATS_CCACHE_VOLUME=f"pystats-harness-ccache-main-command-{tag}",
    )
    env.pop("PYTHONPATH", None)
    pip_lines = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout.split()
    pip_conf = "; ".join(
        sorted({line.split(".", 1)[-1] for line in pip_lines if "find-links" in line or "index" in line})
    )
    print(f"scratch {scratch}; load average before: {loadavg()}")
    print(f"kept from the machine: Debian's packages, the Docker engine; pip config: {pip_conf or '(none)'}")
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        start = time.perf_counter()
        code, boot = timed_lines(["bash", "scripts/bootstrap.sh"], clone, env, log)
        if code != 0:
            print(f"bootstrap failed ({code}); its output: {log}")
            return 1
        code, validate = timed_lines(["python3", "-m", "invoke", "validate"], clone, env, log)
        total = time.perf_counter() - start
        if code != 0:
            print(f"validate failed ({code}); its output: {log}")
            return 1
        print(f"\n{'step':<72} {'s':>7}")
        for name, seconds in steps(boot):
            print(f"{name[:72]:<72} {seconds:7.1f}")
        print(f"{'bootstrap':<72} {boot[-1][0]:7.1f}")
        print(f"{'invoke validate':<72} {validate[-1][0]:7.1f}")
        print(f"{'total (goal <= 360 s)':<72} {total:7.1f}   = {total / 60:.1f} min")
        print(f"load average after: {loadavg()}")
        return 0
    finally:
        if not args.keep:
            for image in (env["INVOKE_PYSTATS_IMAGE"], env["INVOKE_PYSTATS_BOOTSTRAP_IMAGE"]):
                subprocess.run(["docker", "image", "rm", "-f", image], capture_output=True, check=False)
            subprocess.run(
                ["docker", "volume", "rm", env["INVOKE_PYSTATS_CCACHE_VOLUME"]], capture_output=True, check=False
            )
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
