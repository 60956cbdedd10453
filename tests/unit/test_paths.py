"""Every path under the cache directory is named once, in pystats_harness/paths.py."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from pystats_harness.config import load_settings
from pystats_harness.paths import Area, CachePaths


def test_each_area_is_its_own_place_under_the_root(tmp_path: Path) -> None:
    located = CachePaths(tmp_path).areas()
    relatives = [area.relative for area, _ in located]
    assert len(set(relatives)) == len(relatives) and len({a.name for a, _ in located}) == len(located)
    for area, path in located:
        rel = PurePosixPath(area.relative)
        assert not rel.is_absolute() and ".." not in rel.parts and rel.parts, area
        assert path == tmp_path.joinpath(*rel.parts) == getattr(CachePaths(tmp_path), area.name)
        assert area.holds and isinstance(getattr(CachePaths, area.name), Area)


def test_an_area_knows_what_it_lies_within() -> None:
    assert CachePaths.measured_results.inside(CachePaths.bisect_reports)
    assert not CachePaths.bisect_reports.inside(CachePaths.measured_results)
    assert not CachePaths.builds.inside(CachePaths.build_logs)


def test_settings_read_their_directories_from_the_paths(tmp_path: Path) -> None:
    s = load_settings({"cache_dir": str(tmp_path)})
    assert s.paths == CachePaths(tmp_path)
    assert (s.mirror_dir, s.builds_dir, s.runs_dir, s.worktrees_dir, s.configure_cache_dir) == (
        s.paths.mirror,
        s.paths.builds,
        s.paths.runs,
        s.paths.worktrees,
        s.paths.configure_cache,
    )
    assert s.builds_dir == tmp_path / "builds" and s.mirror_dir == tmp_path / "cpython.git"
