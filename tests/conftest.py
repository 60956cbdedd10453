from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import gate
from tests.support.repo import make_repo

ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gate.order_and_mark(items)


def pytest_runtest_setup(item: pytest.Item) -> None:
    gate.before_integration(item)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    gate.GATE.record(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    gate.finish(session)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    gate.report_skips(terminalreporter)


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[[list[dict[str, str]]], tuple[Path, list[str]]]:
    """A factory for small real git repositories: make(files_by_commit) -> (bare_path, [shas])."""

    def make(commits: list[dict[str, str]]) -> tuple[Path, list[str]]:
        return make_repo(tmp_path / "bare.git", commits)

    return make
