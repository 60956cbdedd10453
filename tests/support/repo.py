"""Git repositories for tests and bench scripts: commits with a fixed identity, made with git's
plumbing on a git directory (a bare repository or the harness's mirror), and small repositories made
from a list of commits."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

#: Who made every commit a test or bench script makes.
IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
#: The default commit time (2023-11-14): with it the same commits have the same shas in every session.
EPOCH = 1700000000


def git_env(date: int | None = EPOCH, **extra: str) -> dict[str, str]:
    """This process's environment with the fixed identity and, unless ``date`` is None, author and
    committer dates of ``date`` (seconds since the epoch, UTC)."""
    dates = {} if date is None else {"GIT_AUTHOR_DATE": f"{date} +0000", "GIT_COMMITTER_DATE": f"{date} +0000"}
    return {**os.environ, **IDENTITY, **dates, **extra}


def commit_files(
    git_dir: Path,
    parent: str | None,
    files: Mapping[str, tuple[str, str]],
    message: str,
    *,
    branch: str | None = None,
    date: int | None = EPOCH,
) -> str:
    """Commit on top of ``parent`` (None: a root commit) with ``files`` = {path: (mode, text)} replaced,
    without a work tree; ``branch`` (if given) is moved to the commit. Returns its sha."""
    git = ["git", "--git-dir", str(git_dir)]
    with tempfile.TemporaryDirectory(prefix="index-") as scratch:
        env = git_env(date, GIT_INDEX_FILE=str(Path(scratch) / "index"))

        def run(*args: str, input: str | None = None) -> str:
            return subprocess.run(
                [*git, *args], env=env, input=input, capture_output=True, text=True, check=True
            ).stdout.strip()

        run("read-tree", *([parent] if parent else ["--empty"]))
        for path, (mode, text) in files.items():
            blob = run("hash-object", "-w", "--stdin", input=text)
            run("update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
        sha = run("commit-tree", run("write-tree"), *(["-p", parent] if parent else []), "-m", message)
    if branch:
        subprocess.run([*git, "update-ref", f"refs/heads/{branch}", sha], check=True)
    return sha


def make_repo(path: Path, commits: list[dict[str, str]]) -> tuple[Path, list[str]]:
    """A bare repository at ``path`` whose branch ``main`` has one commit per item of ``commits``
    ({path: text} added or replaced, message ``commit I``); returns (path, shas oldest first). The
    dates are the clock's, as a developer's commits would have."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    shas: list[str] = []
    for i, files in enumerate(commits):
        changed = {name: ("100644", text) for name, text in files.items()}
        shas.append(commit_files(path, shas[-1] if shas else None, changed, f"commit {i}", branch="main", date=None))
    return path, shas
