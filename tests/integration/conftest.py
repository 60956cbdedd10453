"""Integration fixtures: the real Docker engine, real git, real CPython builds.

Builds go to their own cache (PYSTATS_TEST_CACHE, default ~/.cache/pystats-harness-tests) whose
mirror is fetched from the default cache's mirror, where scripts/bootstrap.sh imported the
release sources.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pystats_harness.config import Settings, load_settings
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Harness:
    cache_dir: Path

    @property
    def settings(self) -> Settings:
        return load_settings({"cache_dir": str(self.cache_dir)})

    def context(self) -> Context:
        return Context(self.settings)

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "INVOKE_PYSTATS_CACHE_DIR": str(self.cache_dir), **extra}

    def invoke(self, *args: str, timeout: float = 3600, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "invoke", *args],
            cwd=ROOT,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def popen(self, *args: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "invoke", *args],
            cwd=ROOT,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )


@pytest.fixture(scope="session")
def harness() -> Harness:
    try:
        client = engine.connect()
    except Exception as exc:
        pytest.fail(f"integration tests need a Docker engine: {exc} (unit tests only: pytest tests/unit)")
    default = load_settings({})
    if engine.image_id(client, default.image) is None:
        pytest.fail(f"builder image {default.image} missing; run scripts/bootstrap.sh")
    cache = Path(os.environ.get("PYSTATS_TEST_CACHE", "~/.cache/pystats-harness-tests")).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    h = Harness(cache)
    Mirror(h.settings.mirror_dir).update(str(default.mirror_dir))
    return h


def make_commit(mirror_dir: Path, parent: str, files: dict[str, tuple[str, str]], message: str, branch: str) -> str:
    """Commit on top of ``parent`` with ``files`` = {path: (mode, text)} replaced; returns the sha."""
    git = ["git", "--git-dir", str(mirror_dir)]
    env = {
        **os.environ,
        "GIT_INDEX_FILE": str(mirror_dir / f"index-{branch.replace('/', '-')}"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_AUTHOR_DATE": "1700000000 +0000",
        "GIT_COMMITTER_DATE": "1700000000 +0000",
    }

    def run(*args: str, input: str | None = None) -> str:
        return subprocess.run(
            [*git, *args], env=env, input=input, capture_output=True, text=True, check=True
        ).stdout.strip()

    run("read-tree", parent)
    for path, (mode, text) in files.items():
        blob = run("hash-object", "-w", "--stdin", input=text)
        run("update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
    tree = run("write-tree")
    sha = run("commit-tree", tree, "-p", parent, "-m", message)
    run("update-ref", f"refs/heads/{branch}", sha)
    os.unlink(env["GIT_INDEX_FILE"])
    return sha
