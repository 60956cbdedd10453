"""The mirror with real git on small repositories (no engine needed)."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from pystats_harness.builder.releases import import_release
from pystats_harness.errors import MirrorError, PatchError, ReleaseImportError, RevisionNotFound
from pystats_harness.infra.apply import apply_patches
from pystats_harness.infra.mirror import Mirror


def _mirror_of(git_repo, tmp_path: Path, commits) -> tuple[Mirror, list[str]]:
    bare, shas = git_repo(commits)
    m = Mirror(tmp_path / "cache" / "cpython.git")
    m.update(str(bare))
    return m, shas


def test_resolve_forms(git_repo, tmp_path: Path) -> None:
    m, shas = _mirror_of(git_repo, tmp_path, [{"a": "1"}, {"a": "2"}, {"a": "3"}, {"a": "4"}])
    assert m.resolve("main").sha == shas[-1]
    assert m.resolve("main~3").sha == shas[0]
    assert m.resolve(shas[1][:9]).sha == shas[1]
    assert m.resolve(shas[2]).subject == "commit 2"
    assert m.read_file("main~1", "a") == "3"
    assert m.read_file("main", "missing") is None
    assert [c.sha for c in m.ancestry_path(shas[0], shas[-1])] == shas[1:]


@pytest.mark.parametrize("rev", ["nope", "main~99", "deadbeef", "--all", "a b"])
def test_unknown_revision_is_one_line(git_repo, tmp_path: Path, rev: str) -> None:
    m, _ = _mirror_of(git_repo, tmp_path, [{"a": "1"}])
    with pytest.raises(RevisionNotFound) as err:
        m.resolve(rev)
    assert "\n" not in str(err.value)


def test_missing_mirror_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(MirrorError, match="invoke mirror"):
        Mirror(tmp_path / "none.git").resolve("main")


def test_worktree_is_removed_even_on_error(git_repo, tmp_path: Path) -> None:
    m, shas = _mirror_of(git_repo, tmp_path, [{"a": "1"}])
    with pytest.raises(KeyboardInterrupt), m.worktree(shas[0], tmp_path / "wts") as wt:
        assert (wt / "a").read_text() == "1"
        raise KeyboardInterrupt
    assert list((tmp_path / "wts").iterdir()) == []
    listed = subprocess.run(
        ["git", "--git-dir", str(m.path), "worktree", "list"], capture_output=True, text=True
    ).stdout
    assert "wt-" not in listed


def _patch(tmp_path: Path, name: str, old: str, new: str, file: str = "f.c") -> Path:
    p = tmp_path / name
    p.write_text(f"--- a/{file}\n+++ b/{file}\n@@ -1 +1 @@\n-{old}\n+{new}\n")
    return p


def test_patches_all_or_nothing(git_repo, tmp_path: Path) -> None:
    m, shas = _mirror_of(git_repo, tmp_path, [{"f.c": "one\n"}])
    good1 = _patch(tmp_path, "p1.patch", "one", "two")
    good2 = _patch(tmp_path, "p2.patch", "two", "three")
    bad = _patch(tmp_path, "p3.patch", "nine", "ten")
    with m.worktree(shas[0], tmp_path / "wts") as wt:
        with pytest.raises(PatchError) as err:
            apply_patches(wt, [good1, bad])
        assert "p3.patch" in str(err.value) and "f.c" in str(err.value) and "@@ -1 +1 @@" in str(err.value)
        assert (wt / "f.c").read_text() == "one\n"  # nothing applied
        apply_patches(wt, [good1, good2])  # a later patch builds on an earlier one
        assert (wt / "f.c").read_text() == "three\n"


def _tarball(tmp_path: Path, version: str, extra: dict[str, str] | None = None, name: str = "rel.tar.gz") -> Path:
    files = {
        "configure.ac": "AC_ARG_ENABLE([pystats])\n",
        "Python/ceval.c": "int x;\n",
        "Lib/opcode.py": "",
        "Include/patchlevel.h": f'#define PY_VERSION "{version}"\n',
        **(extra or {}),
    }
    path = tmp_path / name
    with tarfile.open(path, "w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"Python-{version}/{rel}")
            info.size, info.mtime = len(data), 1700000000
            tar.addfile(info, io.BytesIO(data))
    return path


def test_import_release_is_idempotent_and_refuses_conflicts(tmp_path: Path) -> None:
    m = Mirror(tmp_path / "cpython.git")
    first = import_release(m, _tarball(tmp_path, "3.99.1"))
    assert first.tag == "v3.99.1" and not first.already_present
    again = import_release(m, _tarball(tmp_path, "3.99.1"))
    assert again.already_present and again.sha == first.sha
    assert m.resolve("v3.99.1").sha == first.sha
    with pytest.raises(ReleaseImportError, match="already exists in the mirror with other content"):
        import_release(m, _tarball(tmp_path, "3.99.1", {"Python/ceval.c": "int y;\n"}, name="other.tar.gz"))
    assert m.resolve("v3.99.1").sha == first.sha


def test_import_refuses_non_cpython(tmp_path: Path) -> None:
    path = tmp_path / "x.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("proj-1.0/setup.py")
        tar.addfile(info, io.BytesIO(b""))
    with pytest.raises(ReleaseImportError, match="not a CPython source release"):
        import_release(Mirror(tmp_path / "m.git"), path)
    (tmp_path / "junk.tar.xz").write_text("not a tarball")
    with pytest.raises(ReleaseImportError, match="not a readable tar archive"):
        import_release(Mirror(tmp_path / "m.git"), tmp_path / "junk.tar.xz")
    with pytest.raises(ReleaseImportError, match="does not exist"):
        import_release(Mirror(tmp_path / "m.git"), tmp_path / "nope.tar.xz")


def _tag(bare: Path, tag: str, sha: str) -> None:
    subprocess.run(["git", "--git-dir", str(bare), "tag", tag, sha], check=True)


def test_fetching_a_history_keeps_imported_tags(git_repo, tmp_path: Path) -> None:
    """A history that tags v3.99.1 itself does not overwrite the import; its tag is kept as upstream/v3.99.1."""
    m = Mirror(tmp_path / "cpython.git")
    imported = import_release(m, _tarball(tmp_path, "3.99.1"))
    bare, shas = git_repo([{"a": "1"}, {"a": "2"}])
    _tag(bare, "v3.99.1", shas[0])
    _tag(bare, "v3.99.0", shas[1])
    summary = m.update(str(bare))
    assert "kept the imported v3.99.1 (the remote's as upstream/v3.99.1)" in summary
    assert m.resolve("v3.99.1").sha == imported.sha
    assert m.resolve("upstream/v3.99.1").sha == shas[0]
    assert m.resolve("v3.99.0").sha == shas[1]
    assert m.imported_tags() == ["v3.99.1"]
    assert import_release(m, _tarball(tmp_path, "3.99.1")).already_present  # bootstrap's second import is a no-op
    m.update(str(bare))  # and a second fetch changes nothing
    assert m.resolve("v3.99.1").sha == imported.sha and m.resolve("upstream/v3.99.1").sha == shas[0]


def test_import_over_a_fetched_history_tag_moves_it_aside(git_repo, tmp_path: Path) -> None:
    """A mirror whose v3.99.1 came from a history (fetched before imports were kept) takes the import again."""
    bare, shas = git_repo([{"a": "1"}])
    _tag(bare, "v3.99.1", shas[0])
    m = Mirror(tmp_path / "cpython.git")
    m.update(str(bare))
    assert m.imported_tags() == []
    result = import_release(m, _tarball(tmp_path, "3.99.1"))
    assert not result.already_present and result.history_tag_moved_to == "upstream/v3.99.1"
    assert m.resolve("v3.99.1").sha == result.sha and m.resolve("upstream/v3.99.1").sha == shas[0]
    assert m.imported_tags() == ["v3.99.1"]
    again = import_release(m, _tarball(tmp_path, "3.99.1"))
    assert again.already_present and again.history_tag_moved_to is None
