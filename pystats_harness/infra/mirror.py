"""The CPython source mirror. The only module that imports ``git`` (GitPython).

A bare mirror in the cache directory; revisions resolve to full shas; each build checks its
commit out into a detached worktree that is always removed afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git

from pystats_harness.errors import CheckoutFailed, MirrorError, RevisionNotFound
from pystats_harness.infra import proc
from pystats_harness.infra.commits import CommitInfo

# who `import-release` commits as; a tag whose commit has this author is an import, not history
_IMPORTER = "pystats-harness import-release"
# where the remote's tag of an imported tag's name is kept (`upstream/v3.13.5`: the release commit in history)
UPSTREAM_TAG_PREFIX = "upstream/"


def _info(c: Any) -> CommitInfo:
    """A GitPython commit as a CommitInfo named by its sha."""
    date = datetime.fromtimestamp(c.committed_date, tz=UTC).isoformat()
    return CommitInfo(rev=c.hexsha, sha=c.hexsha, date=date, subject=str(c.summary))


def _git_error(exc: git.GitCommandError) -> str:
    text = (exc.stderr or str(exc)).strip().replace("stderr: ", "").strip("' \n")
    return text.splitlines()[-1] if text else str(exc)


class Mirror:
    """A bare CPython mirror at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    # -- creating and updating -------------------------------------------------------------
    def exists(self) -> bool:
        return (self.path / "HEAD").is_file() and (self.path / "objects").is_dir()

    def _repo(self) -> git.Repo:
        if not self.exists():
            raise MirrorError(
                f"no CPython mirror at {self.path}; run `invoke mirror` (or `invoke import-release TARBALL`)"
            )
        return git.Repo(self.path)

    def init(self) -> None:
        """Create an empty bare mirror if there is none."""
        if not self.exists():
            self.path.mkdir(parents=True, exist_ok=True)
            git.Repo.init(self.path, bare=True)

    def update(self, remote: str) -> str:
        """Fetch every branch and tag of ``remote`` (URL or local path); imported tags are kept.

        A tag this mirror holds from `invoke import-release` (a release tarball's root commit) is not
        overwritten by the remote's tag of that name: the remote's goes to ``upstream/<tag>``.
        A local repository is borrowed through git alternates instead of being copied, and its
        replace refs come along (so a clone that lacks a blob can still be checked out).
        """
        self.init()
        kept = self.imported_tags()
        refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", *(f"^refs/tags/{t}" for t in kept)]
        local = _local_objects(remote)
        if local is not None:
            alternates = self.path / "objects" / "info" / "alternates"
            known = alternates.read_text().split() if alternates.exists() else []
            if str(local) not in known:
                alternates.parent.mkdir(parents=True, exist_ok=True)
                alternates.write_text("\n".join([*known, str(local)]) + "\n")
            refspecs.append("+refs/replace/*:refs/replace/*")
        with git.Repo(self.path) as repo:
            try:
                repo.git.fetch(remote, *refspecs, "--no-write-fetch-head")
                listed = str(repo.git.ls_remote("--tags", "--refs", remote))
                offered = {line.partition("\trefs/tags/")[2] for line in listed.splitlines()}
                aside = [t for t in kept if t in offered]
                if aside:
                    spec = [f"+refs/tags/{t}:refs/tags/{UPSTREAM_TAG_PREFIX}{t}" for t in aside]
                    repo.git.fetch(remote, *spec, "--no-write-fetch-head")
            except git.GitCommandError as exc:
                raise MirrorError(
                    f"cannot fetch {remote} into {self.path}: {_git_error(exc)}; "
                    "check the remote (pystats.mirror_remote) or pass a local clone's path"
                ) from None
            summary = f"{len(repo.heads)} branches, {len(repo.tags)} tags"
        if kept:
            as_upstream = f" (the remote's as {', '.join(UPSTREAM_TAG_PREFIX + t for t in aside)})" if aside else ""
            summary += f"; kept the imported {', '.join(kept)}{as_upstream}"
        return summary + (" (objects borrowed from the local repository)" if local else "")

    def imported_tags(self) -> list[str]:
        """The tags that name a release tarball's import (commits made by `import-release`), sorted."""
        with self._repo() as repo:
            listed = repo.git.for_each_ref("--format=%(refname:strip=2)\t%(authorname)%(*authorname)", "refs/tags")
        return sorted(
            name for name, _, author in (line.partition("\t") for line in listed.splitlines()) if author == _IMPORTER
        )

    # -- revisions --------------------------------------------------------------------------
    def resolve(self, rev: str) -> CommitInfo:
        """Resolve a sha, short sha, tag, branch or ``main~3`` to a commit."""
        if not rev or rev.startswith("-") or any(c.isspace() for c in rev):
            raise RevisionNotFound(f"revision {rev!r} is not a valid revision name")
        with self._repo() as repo:
            try:  # a full sha resolves lazily: reading its date is what finds it missing
                commit = repo.commit(rev)
                committed, summary = commit.committed_date, str(commit.summary)
            except (git.BadName, ValueError, git.GitCommandError):
                raise RevisionNotFound(
                    f"revision {rev!r} not found in the mirror {self.path}; try `invoke mirror` to update "
                    "it, `invoke import-release TARBALL` for a release, or a full sha"
                ) from None
            date = datetime.fromtimestamp(committed, tz=UTC).isoformat()
            return CommitInfo(rev=rev, sha=commit.hexsha, date=date, subject=summary)

    def read_file(self, sha: str, path: str) -> str | None:
        """Text of ``path`` at commit ``sha``, or None if it does not exist."""
        with self._repo() as repo:
            try:
                blob = repo.commit(sha).tree / path
            except KeyError:
                return None
            if blob.type != "blob":
                return None
            return blob.data_stream.read().decode("utf-8", errors="replace")

    def is_ancestor(self, older: str, newer: str) -> bool:
        with self._repo() as repo:
            return repo.is_ancestor(repo.commit(older), repo.commit(newer))

    def changed_paths(self, old: str, new: str) -> list[str] | None:
        """Files that differ between two commits (added, deleted, modified), or None if git cannot tell."""
        with self._repo() as repo:
            try:
                out = repo.git.diff("--name-only", "--no-renames", old, new)
            except git.GitCommandError:
                return None
            return [line for line in out.splitlines() if line]

    def merge_base(self, a: str, b: str) -> CommitInfo | None:
        """The best common ancestor of two commits, or None (unrelated histories)."""
        with self._repo() as repo:
            bases = repo.merge_base(a, b)
            if not bases:
                return None
            return _info(bases[0])

    def ancestry_path(self, good: str, bad: str, *, first_parent: bool = False) -> list[CommitInfo]:
        """Commits on the ancestry path good..bad, oldest first (bad included, good excluded)."""
        with self._repo() as repo:
            extra: dict[str, Any] = {"first_parent": True} if first_parent else {}
            commits = list(repo.iter_commits(f"{good}..{bad}", ancestry_path=True, reverse=True, **extra))
            return [_info(c) for c in commits]

    def diff(self, old: str, new: str, paths: tuple[str, ...] = ()) -> str:
        """``git diff old new [-- paths]`` (renames shown as such), or "" if git cannot tell."""
        with self._repo() as repo:
            try:
                return str(repo.git.diff("--no-color", "--no-ext-diff", "-M", old, new, "--", *paths))
            except git.GitCommandError:
                return ""

    def parent(self, sha: str) -> CommitInfo | None:
        """The first parent of ``sha`` (None for a root commit)."""
        with self._repo() as repo:
            parents = repo.commit(sha).parents
            return _info(parents[0]) if parents else None

    def first_parent_after(self, sha: str, horizon: int, paths: tuple[str, ...] = ()) -> list[CommitInfo]:
        """The first-parent commits after ``sha`` (oldest first, at most ``horizon`` of them) on the branch
        that carries it (``main`` when it does, else the first branch by name), those that touch ``paths``
        when given."""
        with self._repo() as repo:
            try:
                branches = repo.git.branch("--contains", sha, "--format=%(refname:short)").split()
            except git.GitCommandError:
                return []
            if not branches:
                return []
            tip = "main" if "main" in branches else sorted(branches)[0]
            span = f"{sha}..{tip}"
            later = repo.git.rev_list("--first-parent", "--reverse", span).split()[:horizon]
            if paths:
                touching = set(repo.git.rev_list("--first-parent", span, "--", *paths).split())
                later = [s for s in later if s in touching]
            return [_info(repo.commit(s)) for s in later]

    # -- worktrees --------------------------------------------------------------------------
    @contextlib.contextmanager
    def worktree(self, sha: str, parent: Path) -> Iterator[Path]:
        """A detached worktree of ``sha`` under ``parent``; always removed afterwards."""
        parent.mkdir(parents=True, exist_ok=True)
        proc.reap_dead(parent, "wt-")
        path = parent / f"wt-{sha[:12]}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        with self._repo() as repo:
            try:
                try:
                    repo.git.worktree("add", "--detach", "--force", str(path), sha)
                except git.GitCommandError as exc:
                    raise CheckoutFailed(sha, _git_error(exc)) from None
                yield path
            finally:
                with contextlib.suppress(git.GitCommandError):
                    repo.git.worktree("remove", "--force", str(path))
                shutil.rmtree(path, ignore_errors=True)
                with contextlib.suppress(git.GitCommandError):
                    repo.git.worktree("prune")

    # -- release import ---------------------------------------------------------------------
    def tag_tree(self, tag: str) -> str | None:
        with self._repo() as repo:
            try:
                return repo.commit(tag).tree.hexsha
            except (git.BadName, ValueError, git.GitCommandError):
                return None

    def commit_tree_from_dir(self, directory: Path, tag: str, message: str, date: str) -> str:
        """Commit the files of ``directory`` as a root commit and tag it; returns the sha.

        Author, committer and date are fixed, so importing the same files twice gives the same sha.
        """
        self.init()
        ident = _IMPORTER
        email = "import-release@pystats-harness.invalid"
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(
                os.environ,
                GIT_DIR=str(self.path),
                GIT_WORK_TREE=str(directory),
                GIT_INDEX_FILE=str(Path(tmp) / "index"),
                GIT_AUTHOR_NAME=ident,
                GIT_AUTHOR_EMAIL=email,
                GIT_AUTHOR_DATE=date,
                GIT_COMMITTER_NAME=ident,
                GIT_COMMITTER_EMAIL=email,
                GIT_COMMITTER_DATE=date,
            )

            def run(*args: str) -> str:
                out = proc.run(
                    ["git", *args], error=MirrorError, what=f"git {args[0]} in {self.path}", cwd=directory, env=env
                )
                return out.strip()

            run("-c", "core.autocrlf=false", "add", "-A", "-f", ".")
            tree = run("write-tree")
            sha = run("commit-tree", tree, "-m", message)
            run("update-ref", tag if tag.startswith("refs/") else f"refs/tags/{tag}", sha)
            return sha

    def tag_sha(self, tag: str) -> str | None:
        """The commit tag ``tag`` names, or None if the mirror has no such tag."""
        with self._repo() as repo:
            try:
                return repo.commit(f"refs/tags/{tag}").hexsha
            except (git.BadName, ValueError, git.GitCommandError):
                return None

    def move_tag(self, tag: str, new_name: str) -> None:
        """Rename tag ``tag`` to ``new_name``, which must be free or name the same commit."""
        sha, there = self.tag_sha(tag), self.tag_sha(new_name)
        if sha is None or there not in (None, sha):
            why = "the mirror has no such tag" if sha is None else f"{new_name} already names {there}"
            raise MirrorError(f"cannot move tag {tag} to {new_name}: {why}")
        with self._repo() as repo:
            repo.git.update_ref(f"refs/tags/{new_name}", sha)
            repo.git.update_ref("-d", f"refs/tags/{tag}")

    def set_tag(self, tag: str, sha: str) -> None:
        """Create lightweight tag ``tag`` at ``sha`` (refuses to move an existing one)."""
        with self._repo() as repo:
            try:
                repo.git.tag(tag, sha)
            except git.GitCommandError as exc:
                raise MirrorError(f"cannot create tag {tag}: {_git_error(exc)}") from None


def _local_objects(remote: str) -> Path | None:
    """The objects directory of a local repository path (bare or not), else None."""
    path = Path(remote.removeprefix("file://")).expanduser()
    if not path.is_dir():
        return None
    for candidate in (path / "objects", path / ".git" / "objects"):
        if candidate.is_dir():
            return candidate.resolve()
    return None
