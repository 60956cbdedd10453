"""Repairs: building a revision whose ``--enable-pystats`` build upstream broke, with the stats lines of the
upstream commit that fixed it (``configs/repairs.toml``, docs/patches.md#repairs).

* :func:`planned` — before a build: the repair of a revision in a known window (or one found earlier by
  the search, recorded in the cache), so ``invoke patches`` and ``build --dry-run`` show it;
* :func:`candidates` — after a build failed to compile: the later first-parent commits that touch the
  files that failed, those whose stats lines remove a name the compiler complained about first; each
  gives the stats lines of its diff in the failing files and the headers they include
  (:mod:`pystats_harness.builder.hunks`), as far as they apply to the revision.

Only hunks that apply to the revision are kept (a hunk whose lines are not there fixes something the
revision does not have); a repair with no hunk left is none.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pystats_harness.builder import hunks
from pystats_harness.builder.upstream import Kind, UpstreamPatch
from pystats_harness.errors import ConfigError, RevisionNotFound
from pystats_harness.infra.apply import applicable
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.infra.mirror import Mirror
from pystats_harness.resources import REPAIRS_TOML

MODES = ("auto", "none")
_ERROR = re.compile(
    r"^(?:\S*?/)?(?:src/)?((?:Python|Objects|Modules|Include|Parser|Programs)/\S+?\.[ch]):\d+(?::\d+)?: (?:fatal )?error: (.*)$"
)
_QUOTED = re.compile(r"[‘'`]([A-Za-z_]\w*)[’'`]")
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


@dataclass(frozen=True)
class Window:
    """Commits from ``first_broken`` up to (not including) ``fixed_by`` cannot build with pystats."""

    id: str
    first_broken: str
    fixed_by: str
    paths: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class RepairConfig:
    stats: hunks.StatsRules
    include_dirs: tuple[str, ...]
    horizon: int
    tries: int
    windows: tuple[Window, ...]


@dataclass(frozen=True)
class CompileFailure:
    """What a failed build's log says: the files that did not compile, and the names in the errors."""

    files: tuple[str, ...]
    names: tuple[str, ...]


def load(path: Path = REPAIRS_TOML) -> RepairConfig:
    try:
        data = tomllib.loads(path.read_text())
        stats, search = data["stats"], data["search"]
        windows = tuple(
            Window(w["id"], w["first_broken"], w["fixed_by"], tuple(w["paths"]), w["reason"])
            for w in data.get("window", [])
        )
        rules = hunks.StatsRules(tuple(stats["tokens"]), tuple(stats["files"]), stats.get("region", "Py_STATS"))
        return RepairConfig(rules, tuple(stats["include_dirs"]), int(search["horizon"]), int(search["tries"]), windows)
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: not a repairs file ({type(exc).__name__}: {exc})") from None


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ConfigError(f"--repairs {mode!r} is not one of: {', '.join(MODES)}")
    return mode


def compile_failure(log: str) -> CompileFailure:
    """The files and names of a build log's compiler errors (paths relative to the source tree)."""
    files: dict[str, None] = {}
    names: dict[str, None] = {}
    for line in log.splitlines():
        if m := _ERROR.match(line.strip()):
            files[m[1]] = None
            names.update(dict.fromkeys(_QUOTED.findall(m[2])))
    return CompileFailure(tuple(files), tuple(names))


def included(read: Callable[[str], str | None], files: Iterable[str], include_dirs: tuple[str, ...]) -> set[str]:
    """Every header ``files`` include (``#include "…"``), directly or through other headers."""
    seen: set[str] = set()
    todo = list(files)
    while todo:
        path = todo.pop()
        text = read(path)
        if text is None:
            continue
        here = str(PurePosixPath(path).parent)
        for name in _INCLUDE.findall(text):
            for base in (here, *include_dirs):
                candidate = str(PurePosixPath(base) / name)
                if candidate not in seen and read(candidate) is not None:
                    seen.add(candidate)
                    todo.append(candidate)
                    break
                if candidate in seen:
                    break
    return seen


def from_fix(
    mirror: Mirror, target: CommitInfo, fix: CommitInfo, eligible: Callable[[str], bool], cfg: RepairConfig, how: str
) -> UpstreamPatch | None:
    """The stats lines of ``fix``'s diff in ``eligible`` files that apply to ``target`` (None: none do)."""
    parent = mirror.parent(fix.sha)
    if parent is None:
        return None
    selection = hunks.select(
        mirror.diff(parent.sha, fix.sha), eligible, lambda p: mirror.read_file(parent.sha, p), cfg.stats
    )
    if selection.empty:
        return None
    fits = applicable(mirror.path, target.sha, [p.text for p in selection.pieces])
    kept = [p for p, ok in zip(selection.pieces, fits, strict=True) if ok]
    if not kept:
        return None
    paths = tuple(dict.fromkeys(p.path for p in kept))
    left = sum(t.left for t in selection.files if t.path in paths)
    return UpstreamPatch(Kind.REPAIR, fix.sha, fix.subject, paths, hunks.compose(kept), how, left)


def window_of(mirror: Mirror, commit: CommitInfo, cfg: RepairConfig) -> Window | None:
    """The known window ``commit`` lies in (its shas must be in the mirror)."""
    for w in cfg.windows:
        try:  # a window whose commits this mirror lacks does not apply
            first, fixed = mirror.resolve(w.first_broken), mirror.resolve(w.fixed_by)
        except RevisionNotFound:
            continue
        inside = mirror.is_ancestor(first.sha, commit.sha) and not mirror.is_ancestor(fixed.sha, commit.sha)
        if inside:
            return w
    return None


def _record(found_dir: Path, sha: str) -> Path:
    return found_dir / f"{sha}.json"


def remember(found_dir: Path, commit: CommitInfo, patch: UpstreamPatch) -> None:
    """Keep what the search found for ``commit``, so its next plan shows the repair before building."""
    doc = {"sha": commit.sha, "fixed_by": patch.sha, "paths": list(patch.paths), "how": patch.how}
    found_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(_record(found_dir, commit.sha), doc, indent=2, sort_keys=True)


def planned(
    mirror: Mirror, commit: CommitInfo, mode: str, found_dir: Path, cfg: RepairConfig | None = None
) -> UpstreamPatch | None:
    """The repair ``commit`` is built with from the start: a known window's, or one the search found."""
    if check_mode(mode) == "none":
        return None
    cfg = cfg or load()
    if (w := window_of(mirror, commit, cfg)) is not None:
        fix = mirror.resolve(w.fixed_by)
        how = f"known window {w.id} (configs/repairs.toml): {w.reason}"
        return from_fix(mirror, commit, fix, lambda p: p in w.paths, cfg, how)
    record = _record(found_dir, commit.sha)
    if record.is_file():
        doc = json.loads(record.read_text())
        paths = set(doc["paths"])
        return from_fix(mirror, commit, mirror.resolve(doc["fixed_by"]), lambda p: p in paths, cfg, doc["how"])
    return None


def candidates(
    mirror: Mirror, commit: CommitInfo, failure: CompileFailure, cfg: RepairConfig | None = None
) -> list[UpstreamPatch]:
    """Repairs to try for ``commit`` whose build failed so, best first, at most ``tries`` of them.

    A candidate is a later first-parent commit (within ``horizon``) that touches a failing file and has
    stats lines there or in a header the failing files include that apply to ``commit``. Those whose
    removed lines name something the compiler complained about come first, each group oldest first."""
    cfg = cfg or load()
    if not failure.files:
        return []
    headers = included(lambda p: mirror.read_file(commit.sha, p), failure.files, cfg.include_dirs)
    eligible = set(failure.files) | headers
    naming: list[UpstreamPatch] = []
    others: list[UpstreamPatch] = []
    files = ", ".join(failure.files)
    for later in mirror.first_parent_after(commit.sha, cfg.horizon, failure.files):
        how = f"found by search: the first later first-parent commit with stats lines in {files} that apply"
        patch = from_fix(mirror, commit, later, eligible.__contains__, cfg, how)
        if patch is None:
            continue
        removed = [line for line in patch.text.splitlines() if line.startswith("-") and not line.startswith("---")]
        names_one = any(re.search(rf"\b{re.escape(n)}\b", line) for n in failure.names for line in removed)
        (naming if names_one else others).append(patch)
        if len(naming) >= cfg.tries:
            break
    return [*naming, *others][: cfg.tries]
