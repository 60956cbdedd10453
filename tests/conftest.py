from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def git_repo(tmp_path: Path):
    """A factory for small real git repositories: make(files_by_commit) -> (bare_path, [shas])."""

    def make(commits: list[dict[str, str]]) -> tuple[Path, list[str]]:
        work = tmp_path / "work"
        work.mkdir()
        env = dict(
            os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"
        )
        subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True, env=env)
        shas = []
        for i, files in enumerate(commits):
            for rel, text in files.items():
                p = work / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            subprocess.run(["git", "add", "-A"], cwd=work, check=True, env=env)
            subprocess.run(["git", "commit", "-q", "-m", f"commit {i}"], cwd=work, check=True, env=env)
            shas.append(
                subprocess.run(
                    ["git", "rev-parse", "HEAD"], cwd=work, check=True, env=env, capture_output=True, text=True
                ).stdout.strip()
            )
        bare = tmp_path / "bare.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
        return bare, shas

    return make
