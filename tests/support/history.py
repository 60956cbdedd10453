"""The real-history gate: tests that need commits of CPython's own git history (the release tarballs
the bootstrap imports hold none) run only where PYSTATS_CPYTHON_GIT names a local clone of it."""

from __future__ import annotations

import os

import pytest

from tests.support.invoke_runner import Harness

CPYTHON_GIT = os.environ.get("PYSTATS_CPYTHON_GIT")
REASON = "PYSTATS_CPYTHON_GIT does not name a local clone of CPython's git history"

#: Marks a test that needs the real history; skipped, with :data:`REASON`, without it.
needs_real_history = pytest.mark.skipif(not CPYTHON_GIT, reason=REASON)


def mirror_real_history(harness: Harness) -> None:
    """Fetch the clone's history into the harness's mirror (`invoke mirror --remote $PYSTATS_CPYTHON_GIT`)."""
    assert harness.invoke("mirror", "--remote", str(CPYTHON_GIT)).returncode == 0
