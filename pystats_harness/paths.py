"""Every place the harness writes under its cache directory, named once.

Each area is one line in :class:`CachePaths`: its path relative to the cache root and what it holds.
``CachePaths(root).builds`` is a :class:`~pathlib.Path`; ``CachePaths.builds`` (on the class) is the
:class:`Area` itself; :meth:`CachePaths.areas` lists them all in the order declared (what
``invoke cache list`` shows). A new area is one more line here and nothing else.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import overload


class Area:
    """One area under the cache root, declared as a class attribute of :class:`CachePaths`."""

    def __init__(self, relative: str, holds: str, *, answer: bool = False) -> None:
        self.relative = relative  # "/"-separated, under the root
        self.holds = holds  # what it holds, in a few words (the cache list table)
        self.answer = answer  # a task writes its answer here from what is stored, with no build or run
        self.name = ""  # the attribute name, set by __set_name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Area: ...

    @overload
    def __get__(self, obj: CachePaths, owner: type | None = None) -> Path: ...

    def __get__(self, obj: CachePaths | None, owner: type | None = None) -> Area | Path:
        return self if obj is None else obj.root / self.relative

    def inside(self, other: Area) -> bool:
        """Whether this area lies within ``other`` (``cluster/scripts`` within ``cluster``)."""
        return self.relative.startswith(f"{other.relative}/")

    def __repr__(self) -> str:
        return f"Area({self.name}: {self.relative!r})"


@dataclass(frozen=True)
class CachePaths:
    """The areas of one cache root (``pystats.cache_dir``)."""

    root: Path

    mirror = Area("cpython.git", "the bare CPython mirror")
    builds = Area("builds", "built interpreters, one per build key, and their locks")
    worktrees = Area("worktrees", "checkouts of builds in progress")
    lanes = Area("lanes", "reused build directories, per build group")
    configure_cache = Area("configure-cache", "configure's cached answers, per build group")
    build_logs = Area("logs", "logs of failed builds")
    repairs_found = Area("repairs", "upstream fixes found for revisions whose pystats build failed")
    runs = Area("runs", "each run's output and stats files")
    run_scripts = Area("scripts", "workload scripts copied for runs (readable by nobody)")
    pyperformance = Area("pyperformance", "pyperformance's benchmarks, extracted from its wheel")
    sites = Area("sites", "benchmark requirements installed per build (collect)")
    validate_reports = Area("validate", "validate reports (default --out)")
    collect_outputs = Area("collect", "collect outputs (default --out)")
    diff_outputs = Area("diffs", "diff outputs: both collects, the comparison and its reports (default --out)")
    history_reports = Area("history", "history reports (default --out)")
    bisect_reports = Area("bisect", "bisect reports (default --out)")
    results = Area(
        "results", "the results store: every run recorded, measurements reused by bisect and history (results.sqlite)"
    )
    site = Area("site", "the static site `invoke publish` writes (default --out)", answer=True)
    unit_scripts = Area("cluster/scripts", "workload scripts sent with units (on a worker)")
    unit_scratch = Area("cluster-units", "scratch of collect units (on a worker)")
    unit_failures = Area(
        "cluster-failures", "tracebacks of unexpected errors in units, named in the run's error line (on a worker)"
    )
    local_cluster = Area("cluster-local", "caches and logs of `invoke cluster-local`'s workers")
    bootstrap_rootfs = Area("bootstrap", "debootstrap's rootfs while `invoke image --bootstrap` runs")

    @property
    def results_db(self) -> Path:
        """The results store's file (:mod:`pystats_harness.results`), with its write-ahead log beside it."""
        return self.results / "results.sqlite"

    @classmethod
    def declared(cls) -> tuple[Area, ...]:
        """Every area, in the order declared."""
        return tuple(value for value in vars(cls).values() if isinstance(value, Area))

    @classmethod
    def answers(cls) -> tuple[Area, ...]:
        """The areas a task fills from what the cache already holds (publish's site, even of an empty store):
        any valid input may change them; nothing else changes without a build, a run or a fetch."""
        return tuple(area for area in cls.declared() if area.answer)

    def areas(self) -> tuple[tuple[Area, Path], ...]:
        """Every area with its path under this root, in the order declared."""
        return tuple((area, self.root / area.relative) for area in self.declared())


def run_folder(area: Path, label: str, config: str = "default") -> Path:
    """A run's default output folder in ``area`` (validate, collect, bisect, history): named by when it
    started, what it ran and its build configuration when not the default
    (``20261203T131500-v3.13.5-tier2``)."""
    suffix = "" if config == "default" else f"-{config}"
    return area / f"{time.strftime('%Y%m%dT%H%M%S')}-{label.replace('/', '_')}{suffix}"
