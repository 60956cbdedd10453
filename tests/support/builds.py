"""Builds through `invoke build`, read back from its output."""

from __future__ import annotations

from collections.abc import Iterable

from pystats_harness.builder.cache import CacheEntry, lookup
from tests.support.invoke_runner import Harness


def cache_key(lines: Iterable[str]) -> str:
    """The key on the ``cache key`` line of a build's output."""
    return next(line.split()[-1] for line in lines if line.startswith("cache key"))


def built(harness: Harness, rev: str, patches: str = "auto") -> CacheEntry:
    """The complete cache entry of ``rev`` (built now unless the cache has it)."""
    out = harness.invoke("build", "--rev", rev, "--patches", patches)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    entry = lookup(harness.settings.builds_dir, cache_key(out.stdout.splitlines()))
    assert entry is not None
    return entry
