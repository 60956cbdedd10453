"""The README stays a front door and the docs/ pages hold together: links resolve, every page is in
the nav, and MkDocs builds the site in strict mode."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS_YML = ROOT / "mkdocs.yml"
MAX_README_LINES = 200
GENERATED = ("exit-codes", "settings")

_FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def relative_links(path: Path) -> list[str]:
    """The link targets of a Markdown file that point into the repository (code is left out)."""
    text = _CODE_SPAN.sub("", _FENCE.sub("", path.read_text()))
    return [t for t in _LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:|#", t)]


def nav_entries() -> list[str]:
    """The pages mkdocs.yml's nav lists (its ``nav:`` block, read without a YAML parser)."""
    block = re.search(r"^nav:\n((?:[ \t]+.*\n?)*)", MKDOCS_YML.read_text(), re.M)
    assert block, "mkdocs.yml has no nav"
    return re.findall(r"([\w./-]+\.md)\s*$", block.group(1), re.M)


def test_readme_is_a_front_door() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move detail into docs/"


@pytest.mark.parametrize("name", GENERATED)
def test_readme_marks_each_generated_table_once(name: str) -> None:
    text = README.read_text()
    begin, end = f"<!-- BEGIN GENERATED {name} -->", f"<!-- END GENERATED {name} -->"
    assert text.count(begin) == 1 and text.count(end) == 1
    assert text.index(begin) < text.index(end)


@pytest.mark.parametrize("path", [README, *pages()], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    broken = [t for t in relative_links(path) if not (path.parent / t.split("#", 1)[0]).exists()]
    assert broken == []


def test_every_page_is_in_the_nav() -> None:
    nav = nav_entries()
    assert sorted(nav) == sorted(p.name for p in pages())
    assert len(nav) == len(set(nav)), "a page is listed twice"


def test_mkdocs_builds_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
