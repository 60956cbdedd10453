"""What the cache holds and how it is kept small: ``invoke cache list|verify|prune``.

:func:`inventory` reads every entry (revision, size, created, last used, state); :func:`choose` is
the pure policy (keep the N most recently used, drop what is older than D days, then the least
recently used until the rest fits in SIZE); :func:`prune` removes the chosen entries that no other
invocation uses, with their runs, reports and benchmark sites, and the lanes of build groups no entry
needs.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import re
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.builder import integrity, locks
from pystats_harness.builder.cache import MARKER, CacheEntry
from pystats_harness.config import Settings
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.paths import Area, CachePaths

#: Runs of a build in progress (fingerprint probes) are named after its staging directory; a run
#: that no entry owns is removed only once it is this old, so a build in progress keeps its runs.
ORPHAN_RUN_AGE = 3600.0
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.I)


class State(enum.StrEnum):
    OK = "ok"
    INVALID = "invalid"
    INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class EntryInfo:
    key: str
    path: Path
    state: State
    size: int
    created: float
    last_used: float
    revision: str = "?"
    sha: str = ""
    patches: tuple[str, ...] = ()
    python: str = "?"
    group: str = ""
    configuration: str = "default"


@dataclass(frozen=True)
class Policy:
    keep: int | None = None
    max_size: int | None = None
    older_than_days: float | None = None

    def __post_init__(self) -> None:
        if self.keep is None and self.max_size is None and self.older_than_days is None:
            raise ConfigError("invoke cache prune needs --keep N, --max-size SIZE or --older-than DAYS")
        for option, value in (("keep", self.keep), ("max-size", self.max_size), ("older-than", self.older_than_days)):
            if value is not None and value < 0:
                raise ConfigError(f"--{option} {value} is negative; nothing was removed (try --dry-run to look first)")


@dataclass
class PruneResult:
    removed: list[EntryInfo] = field(default_factory=list)
    in_use: list[EntryInfo] = field(default_factory=list)
    freed: int = 0
    extra: dict[str, int] = field(default_factory=dict)  # runs / reports / lanes -> bytes freed


def parse_size(text: str) -> int:
    """``"20G"``, ``"500M"``, ``"1.5T"``, ``"123"`` (bytes) -> bytes."""
    m = _SIZE.match(str(text))
    if not m:
        raise ConfigError(f"size {text!r} is not a size; write e.g. 500M, 20G or 1.5T")
    return int(float(m.group(1)) * 1024 ** "bkmgt".index((m.group(2) or "b").lower()))


def human(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"


def du(path: Path) -> int:
    total = 0
    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def area_sizes(paths: CachePaths) -> list[tuple[Area, int]]:
    """Bytes in each area of the cache apart from the areas within it (``cluster/`` without
    ``cluster/scripts/``, were both declared: the inner one has its own), so that they add up."""
    located = paths.areas()
    total = {area.name: du(path) for area, path in located}
    own = dict(total)
    for inner, _ in located:
        around = [a for a, _ in located if inner.inside(a)]
        if around:  # counted once, in the nearest area around it
            own[max(around, key=lambda a: len(a.relative)).name] -= total[inner.name]
    return [(area, own[area.name]) for area, _ in located]


def _info(builds_dir: Path, path: Path) -> EntryInfo:
    entry = CacheEntry(path)
    state = State.OK if entry.complete() else State.INVALID if (path / integrity.INVALID).exists() else State.INCOMPLETE
    created = path.stat().st_mtime
    used = locks.last_used(builds_dir, path.name) or created
    try:
        m = json.loads(entry.manifest_path.read_text())
    except (OSError, ValueError):
        return EntryInfo(path.name, path, state, du(path), created, used)
    return EntryInfo(
        path.name,
        path,
        state,
        du(path),
        created,
        used,
        str(m.get("revision", "?")),
        str(m.get("sha", "")),
        tuple(p.get("id", "?") for p in m.get("patches", [])),
        str(m.get("python", {}).get("version", "?")),
        str(m.get("build_dir", {}).get("group", "")),
        str(m.get("configuration", "default")),
    )


def inventory(settings: Settings) -> list[EntryInfo]:
    """Every entry directory of the cache (staging directories of builds in progress are not entries)."""
    builds = settings.builds_dir
    if not builds.is_dir():
        return []
    paths = [p for p in builds.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return sorted((_info(builds, p) for p in paths), key=lambda e: -e.last_used)


def choose(entries: Sequence[EntryInfo], policy: Policy, now: float) -> list[EntryInfo]:
    """Pure: the entries to remove, least recently used first."""
    by_use = sorted(entries, key=lambda e: -e.last_used)  # most recently used first
    chosen = {e.key for e in by_use if e.state is not State.OK}  # invalid or half entries: always
    if policy.keep is not None:
        chosen |= {e.key for e in [e for e in by_use if e.state is State.OK][policy.keep :]}
    if policy.older_than_days is not None:
        cutoff = now - policy.older_than_days * 86400
        chosen |= {e.key for e in by_use if e.last_used < cutoff}
    if policy.max_size is not None:
        total = sum(e.size for e in by_use if e.key not in chosen)
        for e in reversed(by_use):
            if total <= policy.max_size:
                break
            if e.key not in chosen:
                chosen.add(e.key)
                total -= e.size
    return [e for e in reversed(by_use) if e.key in chosen]


def _remove_tree(path: Path) -> int:
    size = du(path)
    trash = path.with_name(f".trash-{path.name}-{os.getpid()}")
    try:
        os.replace(path, trash)
    except OSError:
        return 0
    shutil.rmtree(trash, ignore_errors=True)
    return size


def _remove_entry(settings: Settings, entry: EntryInfo) -> int:
    """The marker goes first (a half-removed entry is never served), then the directory."""
    (entry.path / MARKER).unlink(missing_ok=True)
    return _remove_tree(entry.path)


def _runs_and_reports(settings: Settings, keys: Iterable[str], kept: set[str], now: float) -> dict[str, int]:
    gone = {k[:8] for k in keys}
    alive = {k[:8] for k in kept}
    freed = {"runs": 0, "reports": 0, "sites": 0}
    for run in settings.runs_dir.glob("*") if settings.runs_dir.is_dir() else ():
        owner = run.name.split("-", 2)[1][:8] if run.name.count("-") >= 2 else ""
        orphan = owner not in alive and now - run.stat().st_mtime > ORPHAN_RUN_AGE
        if owner in gone or orphan:
            freed["runs"] += _remove_tree(run)
    for report in settings.paths.validate_reports.glob("*/validation.json"):
        try:
            key = json.loads(report.read_text())["metadata"].get("build_key", "")
        except (OSError, ValueError, KeyError, AttributeError):
            continue
        if key[:8] in gone:
            freed["reports"] += _remove_tree(report.parent)
    for site in (settings.paths.sites / key for key in keys):  # collect's installs, per build
        freed["sites"] += _remove_tree(site) if site.is_dir() else 0
    return freed


def _lanes(settings: Settings, kept: Sequence[EntryInfo]) -> int:
    """Lanes (reused build directories) of build groups that no remaining entry belongs to; none while
    an entry made before groups were recorded remains (its group is unknown)."""
    root = settings.paths.lanes
    if not root.is_dir() or not all(e.group for e in kept):
        return 0
    needed = {e.group for e in kept}
    freed = 0
    for state in root.glob("*.json"):
        lane = state.with_suffix("")
        if lane.name.rsplit("-", 1)[0] in needed:
            continue
        with locks.exclusive_if_free(root / f"{lane.name}.lock") as free:
            if free:
                freed += _remove_tree(lane) if lane.exists() else 0
                state.unlink(missing_ok=True)
    return freed


def prune(
    settings: Settings, policy: Policy, *, dry_run: bool = False, only: frozenset[str] | None = None
) -> PruneResult:
    """Remove what :func:`choose` picks, except entries another invocation uses; ``only``: of those, only
    the builds with these keys (what a user was shown and confirmed, nothing chosen since)."""
    now = time.time()
    entries = inventory(settings)
    result = PruneResult()
    for e in choose(entries, policy, now):
        if only is not None and e.key not in only:
            continue
        if dry_run:
            result.removed.append(e)
            result.freed += e.size
            continue
        with locks.unused(settings.builds_dir, e.key) as free:
            if not free:
                result.in_use.append(e)
                continue
            result.freed += _remove_entry(settings, e)
            result.removed.append(e)
    if not dry_run:
        kept = [e for e in entries if e not in result.removed]
        result.extra = _runs_and_reports(settings, [e.key for e in result.removed], {e.key for e in kept}, now)
        result.extra["lanes"] = _lanes(settings, kept)
    return result


def after_build(ctx: Context) -> PruneResult | None:
    """With the setting ``cache_max_size``, keep the cache within it after every build."""
    if not ctx.settings.cache_max_size:
        return None
    result = prune(ctx.settings, Policy(max_size=parse_size(ctx.settings.cache_max_size)))
    if result.removed:
        ctx.reporter.info(
            f"cache_max_size {ctx.settings.cache_max_size}: removed {len(result.removed)} least recently used "
            f"build(s), {human(result.freed + sum(result.extra.values()))} freed"
        )
    return result
