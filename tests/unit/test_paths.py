"""Every path under the cache directory is named once, in pystats_harness/paths.py."""

from __future__ import annotations

import ast
from pathlib import Path, PurePosixPath

import pytest

from pystats_harness.builder import prune
from pystats_harness.cli import cache as cache_cli
from pystats_harness.config import load_settings
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.paths import Area, CachePaths

PACKAGE = Path(__file__).resolve().parents[2] / "pystats_harness"


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
    inner, outer = Area("bisect/results", "inner"), Area("bisect", "outer")
    assert inner.inside(outer) and not outer.inside(inner)
    assert not Area("bisector", "a sibling").inside(outer)
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


def test_cache_list_shows_every_area_with_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = load_settings({"cache_dir": str(tmp_path), "ccache_volume": "vol"})
    located = settings.paths.areas()
    for i, (_area, path) in enumerate(located):
        path.mkdir(parents=True, exist_ok=True)
        (path / "data").write_bytes(b"x" * 1000 * (i + 1))
    monkeypatch.setattr(engine, "volume_size", lambda client, name: 5 * 1024**3 if name == "vol" else None)
    cache_cli.show(Context(settings, _client=object()))  # type: ignore[arg-type]
    lines = capsys.readouterr().out.splitlines()
    for i, (area, _) in enumerate(located):
        row = [line.split() for line in lines if line.split()[:1] == [f"{area.relative}/"]]
        # its own bytes: an area within another has a row of its own
        assert len(row) == 1 and " ".join(row[0][1:3]) == prune.human(1000 * (i + 1)), (area, lines)
        assert any(line.endswith(area.holds) for line in lines if f"{area.relative}/" in line), area
    assert any(line.split()[:3] == ["ccache", "5.0", "GB"] and "(volume vol)" in line for line in lines), lines


def _is_cache_dir(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "cache_dir") or (
        isinstance(node, ast.Attribute) and node.attr == "cache_dir"
    )


def _places_under_the_cache_dir(path: Path) -> list[str]:
    """Lines that name a place under ``cache_dir`` themselves: ``cache_dir / "x"``, ``cache_dir.joinpath``,
    ``os.path.join(cache_dir, …)``, ``Path(cache_dir, …)`` or a temporary directory right in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _is_cache_dir(node.left):
            found.append(node)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if (
                (name == "joinpath" and isinstance(func, ast.Attribute) and _is_cache_dir(func.value))
                or (name in ("join", "Path") and node.args and _is_cache_dir(node.args[0]) and len(node.args) > 1)
                or any(k.arg == "dir" and _is_cache_dir(k.value) for k in node.keywords)
            ):
                found.append(node)
    return [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {ast.unparse(node)}" for node in found]


def test_only_paths_py_names_places_under_the_cache_dir() -> None:
    found = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "paths.py"
        for line in _places_under_the_cache_dir(path)
    ]
    assert found == [], (
        "name these in pystats_harness/paths.py (CachePaths) and read them from settings.paths:\n" + "\n".join(found)
    )
