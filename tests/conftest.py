from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.repo import make_repo

ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[[list[dict[str, str]]], tuple[Path, list[str]]]:
    """A factory for small real git repositories: make(files_by_commit) -> (bare_path, [shas])."""

    def make(commits: list[dict[str, str]]) -> tuple[Path, list[str]]:
        return make_repo(tmp_path / "bare.git", commits)

    return make
