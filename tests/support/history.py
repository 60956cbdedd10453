"""The real-history gate: tests that need commits of CPython's own git history (the release tarballs
the bootstrap imports hold none) run only where PYSTATS_CPYTHON_GIT names a local clone of it.
``python3 -m pytest -m history`` runs exactly them (tests/skips.toml allows their skip elsewhere)."""

from __future__ import annotations

import os
from typing import TypeVar

import pytest

from tests.support.invoke_runner import Harness

CPYTHON_GIT = os.environ.get("PYSTATS_CPYTHON_GIT")
T = TypeVar("T")
REASON = "PYSTATS_CPYTHON_GIT does not name a local clone of CPython's git history"

_SKIP_WITHOUT = pytest.mark.skipif(not CPYTHON_GIT, reason=REASON)


#: The same as marks, for ``pytest.param(..., marks=HISTORY_MARKS)``.
HISTORY_MARKS = (pytest.mark.history, _SKIP_WITHOUT)


def needs_real_history(test: T) -> T:
    """Marks a test that needs the real history (marker ``history``); skipped, with :data:`REASON`, without it."""
    return pytest.mark.history(_SKIP_WITHOUT(test))


def mirror_real_history(harness: Harness) -> None:
    """Fetch the clone's history into the harness's mirror (`invoke mirror --remote $PYSTATS_CPYTHON_GIT`)."""
    assert harness.invoke("mirror", "--remote", str(CPYTHON_GIT)).returncode == 0
