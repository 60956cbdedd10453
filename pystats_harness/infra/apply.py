"""Applying patches with ``git apply``: a build's patches to its worktree (all or nothing), and checks
on a commit's tree in the bare mirror, on a scratch index, which change nothing (which hunks of an
upstream change apply to a revision; whether a commit's diff reverses there)."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pystats_harness.errors import HarnessError, Interrupted, PatchError
from pystats_harness.infra import proc


def _git_in(git_dir: Path, index: Path, *args: str, input: str | None = None) -> bool:
    """``git apply``-like ``args`` on the scratch ``index``; whether git accepted them."""
    env = dict(os.environ, GIT_DIR=str(git_dir), GIT_INDEX_FILE=str(index))
    try:
        proc.run(["git", *args], error=PatchError, what=f"git {args[0]} in {git_dir}", env=env, input=input)
    except HarnessError:
        return False
    return True


def applicable(git_dir: Path, sha: str, patches: Sequence[str], *, reverse: bool = False) -> list[bool]:
    """Which of ``patches`` (texts, in order) apply to ``sha``'s tree, each on top of those before it that
    applied (``reverse``: applied in reverse, as ``git apply -R``). Nothing is written but a scratch index."""
    flags = ["-R"] if reverse else []
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        if not _git_in(git_dir, index, "read-tree", sha):
            return [False] * len(patches)
        fits = []
        for text in patches:
            ok = _git_in(git_dir, index, "apply", "--cached", "--check", *flags, "-", input=text)
            if ok:
                _git_in(git_dir, index, "apply", "--cached", *flags, "-", input=text)
            fits.append(ok)
        return fits


def _failure_hunk(patch: Path, file: str, line: int | None) -> str:
    """The hunk header of ``patch`` for ``file`` nearest to ``line`` (for error messages)."""
    current = None
    best = None
    for text in patch.read_text(errors="replace").splitlines():
        if text.startswith("+++ "):
            current = text[4:].split("\t")[0].removeprefix("b/")
        elif text.startswith("@@") and current == file:
            m = re.match(r"@@ -(\d+)", text)
            start = int(m.group(1)) if m else 0
            if best is None or line is None or start <= line:
                best = text
    return best or "?"


def _does_not_apply(patch: Path, stderr: str) -> PatchError:
    """Name the file and hunk of ``patch`` that git apply rejected."""
    m = re.search(r"patch failed: (.+):(\d+)", stderr)
    file = m.group(1) if m else None
    line = int(m.group(2)) if m else None
    if file is None:
        m2 = re.search(r"error: (\S+): (?:does not exist|No such file)", stderr)
        file = m2.group(1) if m2 else "?"
    return PatchError(
        f"patch {patch.name} ({patch.parent.name}) does not apply: {file}, hunk {_failure_hunk(patch, file, line)}; "
        "nothing was applied. Try --patches none or a patch variant for this layout"
    )


def apply_patches(worktree: Path, patches: Sequence[Path]) -> None:
    """Check every patch in order on a scratch index, then apply them all; all or nothing."""
    if not patches:
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        proc.run(
            ["git", "read-tree", "HEAD"], error=PatchError, what="git read-tree of the worktree", cwd=worktree, env=env
        )
        for patch in patches:
            try:
                proc.run(
                    ["git", "apply", "--cached", str(patch)],
                    error=PatchError,
                    what=f"git apply --cached {patch.name}",
                    cwd=worktree,
                    env=env,
                )
            except PatchError as exc:
                raise _does_not_apply(patch, exc.command.stderr_tail if exc.command else "") from None
    try:
        for patch in patches:
            proc.run(["git", "apply", str(patch)], error=PatchError, what=f"git apply {patch.name}", cwd=worktree)
    except KeyboardInterrupt:
        raise Interrupted("interrupted while applying patches; the worktree is discarded") from None
