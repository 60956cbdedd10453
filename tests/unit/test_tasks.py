"""The task layer as a user meets it: one clear line and a distinct exit code (no engine needed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _invoke(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "invoke", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "INVOKE_PYSTATS_CACHE_DIR": str(tmp_path / "cache"), **env},
    )


def test_list_has_one_line_help_for_every_task(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "--list")
    assert out.returncode == 0
    for name in ("mirror", "import-release", "image", "build", "run"):
        assert name in out.stdout


def test_engine_unreachable_says_how_to_start_it(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "image", DOCKER_HOST="unix:///nonexistent/docker.sock")
    assert out.returncode == 5
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "dockerd" in lines[0]


def test_no_mirror(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "build", "--rev", "main")
    assert out.returncode == 10 and "invoke mirror" in out.stderr


def test_too_old_revision_is_refused(tmp_path: Path, git_repo) -> None:
    bare, shas = git_repo([{"configure.ac": "AC_INIT(python, 3.10)\n", "Python/ceval.c": ""}])
    assert _invoke(tmp_path, "mirror", "--remote", str(bare)).returncode == 0
    out = _invoke(tmp_path, "build", "--rev", shas[0][:10])
    assert out.returncode == 4
    assert "--enable-pystats" in out.stderr and "3.11.0a4" in out.stderr


def test_unknown_revision(tmp_path: Path, git_repo) -> None:
    bare, _ = git_repo([{"configure.ac": "enable-pystats\n"}])
    _invoke(tmp_path, "mirror", "--remote", str(bare))
    out = _invoke(tmp_path, "build", "--rev", "v0.0.0")
    assert out.returncode == 3 and "not found in the mirror" in out.stderr


def test_bad_setting(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "build", INVOKE_PYSTATS_JOBS="lots")
    assert out.returncode == 2 and "pystats.jobs" in out.stderr


def test_bad_release_tarball(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.xz"
    junk.write_text("nope")
    out = _invoke(tmp_path, "import-release", str(junk))
    assert out.returncode == 11 and "not a readable tar archive" in out.stderr
