from __future__ import annotations

from pathlib import Path

import pytest

from pystats_harness.builder.cache import MARKER, cache_key, commit, lookup, staging


def test_key_depends_on_every_input() -> None:
    base = cache_key("a" * 40, ["p:1"], ["--x"], "sha256:img")
    assert base == cache_key("a" * 40, ["p:1"], ["--x"], "sha256:img")
    assert base != cache_key("b" * 40, ["p:1"], ["--x"], "sha256:img")
    assert base != cache_key("a" * 40, [], ["--x"], "sha256:img")
    assert base != cache_key("a" * 40, ["p:1"], ["--y"], "sha256:img")
    assert base != cache_key("a" * 40, ["p:1"], ["--x"], "sha256:other")
    assert cache_key("a", ["p", "q"], [], "i") != cache_key("a", ["q", "p"], [], "i")


def test_entry_counts_only_with_marker(tmp_path: Path) -> None:
    with staging(tmp_path, "k1") as staged:
        (staged / "manifest.json").write_text("{}")
        entry = commit(tmp_path, "k1", staged)
    assert (entry.path / MARKER).exists()
    assert lookup(tmp_path, "k1") == entry
    half = tmp_path / "k2"
    half.mkdir()
    assert lookup(tmp_path, "k2") is None


def test_failed_staging_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), staging(tmp_path, "k") as staged:
        (staged / "x").write_text("half")
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_commit_replaces_incomplete_leftover(tmp_path: Path) -> None:
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "junk").write_text("stale")
    with staging(tmp_path, "k") as staged:
        (staged / "new").write_text("fresh")
        entry = commit(tmp_path, "k", staged)
    assert (entry.path / "new").exists() and not (entry.path / "junk").exists()
