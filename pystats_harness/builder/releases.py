"""`invoke import-release`: commit a CPython release tarball into the mirror as tag vX.Y.Z."""

from __future__ import annotations

import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import ReleaseImportError
from pystats_harness.infra.fs import sha256_file
from pystats_harness.infra.mirror import UPSTREAM_TAG_PREFIX, Mirror

_REQUIRED = ("configure.ac", "Python/ceval.c", "Include/patchlevel.h", "Lib/opcode.py")
_VERSION = re.compile(r'#define\s+PY_VERSION\s+"(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?)\+?"')


@dataclass(frozen=True)
class ImportedRelease:
    tag: str
    sha: str
    version: str
    tarball_sha256: str
    already_present: bool
    # the history's tag of this name, moved aside to make room for the import (``upstream/vX.Y.Z``)
    history_tag_moved_to: str | None = None


def _top_dir(members: list[tarfile.TarInfo], tarball: Path) -> str:
    tops = {m.name.split("/", 1)[0] for m in members if m.name not in (".", "./")}
    if len(tops) != 1:
        raise ReleaseImportError(
            f"{tarball} is not a CPython release tarball: expected one top-level directory, found {len(tops)}"
        )
    return tops.pop()


def _safe_members(members: list[tarfile.TarInfo], tarball: Path) -> list[tarfile.TarInfo]:
    for m in members:
        if m.name.startswith("/") or ".." in Path(m.name).parts:
            raise ReleaseImportError(f"{tarball}: unsafe path {m.name!r} in the archive; refusing to unpack it")
    return [m for m in members if m.isfile() or m.isdir() or m.issym()]


def import_release(mirror: Mirror, tarball: Path) -> ImportedRelease:
    """Unpack ``tarball``, check it is CPython, commit its tree and tag it ``vX.Y.Z``."""
    if not tarball.is_file():
        raise ReleaseImportError(f"release tarball {tarball} does not exist; pass the path of a Python-X.Y.Z.tar.xz")
    try:
        archive = tarfile.open(tarball)  # noqa: SIM115 - closed by the with-statement below
    except (tarfile.TarError, OSError) as exc:
        raise ReleaseImportError(
            f"{tarball} is not a readable tar archive ({exc}); pass a CPython release tarball"
        ) from None
    with archive, tempfile.TemporaryDirectory(prefix="pystats-import-") as tmp:
        members = archive.getmembers()
        top = _top_dir(members, tarball)
        missing = [f for f in _REQUIRED if f"{top}/{f}" not in {m.name for m in members}]
        if missing:
            raise ReleaseImportError(
                f"{tarball} is not a CPython source release: {', '.join(missing)} missing under {top}/"
            )
        archive.extractall(tmp, members=_safe_members(members, tarball), filter="tar")
        root = Path(tmp) / top
        m = _VERSION.search((root / "Include/patchlevel.h").read_text(errors="replace"))
        if not m:
            raise ReleaseImportError(f"{tarball}: Include/patchlevel.h has no PY_VERSION; not a CPython release")
        version = m.group(1)
        tag = f"v{version}"
        # Drop what git must not store as content (nested repos would become submodules).
        for nested in root.rglob(".git"):
            shutil.rmtree(nested, ignore_errors=True) if nested.is_dir() else nested.unlink()
        digest = sha256_file(tarball)
        mtime = int((root / "Include/patchlevel.h").stat().st_mtime)
        message = f"Python {version} (imported from release tarball {tarball.name}, sha256 {digest})"
        moved_to = None
        if mirror.exists() and mirror.tag_sha(tag) is not None and tag not in mirror.imported_tags():
            # the tag came with a fetched history (`invoke mirror` before it kept imports): the
            # history's release commit stays reachable as upstream/<tag>; the tag is the tarball's
            moved_to = UPSTREAM_TAG_PREFIX + tag
            mirror.move_tag(tag, moved_to)
        existing_tree = mirror.tag_tree(tag) if mirror.exists() else None
        sha = mirror.commit_tree_from_dir(root, f"refs/pystats-import/{tag}", message, f"{mtime} +0000")
        new_tree = mirror.tag_tree(sha)
        if existing_tree is not None:
            if existing_tree != new_tree:
                raise ReleaseImportError(
                    f"tag {tag} already exists in the mirror with other content; refusing to overwrite it "
                    f"(delete it with `git --git-dir {mirror.path} tag -d {tag}` if it is stale)"
                )
            existing = mirror.resolve(tag)
            return ImportedRelease(tag, existing.sha, version, digest, already_present=True)
        mirror.set_tag(tag, sha)
        return ImportedRelease(tag, sha, version, digest, already_present=False, history_tag_moved_to=moved_to)
