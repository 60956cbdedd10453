"""The artifact cache: ``builds/<key>/``, valid only once its completion marker exists."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pystats_harness.builder import locks
from pystats_harness.infra.fs import read_json_cached
from pystats_harness.infra.proc import reap_dead
from pystats_harness.infra.runner import RuntimeSwitch
from pystats_harness.stats.names import NameTables

MARKER = "COMPLETE"
#: Bumped whenever what a build produces changes (build script, artifact layout): old entries
#: then miss and are rebuilt instead of being served without, e.g., their names.json.
#: 5: the install keeps only the level-0 .pyc files (script.TRIM_INSTALL).
#: 6: the build also keeps the handlers' sources the canary rules are read from (SOURCE_SUBSET).
RECIPE_VERSION = 6


def cache_key(
    sha: str,
    patch_digests: Sequence[str],
    configure_flags: Sequence[str],
    image_id: str,
    configuration: Mapping[str, Any] | None = None,
) -> str:
    """hash(sha, patches applied, configure flags, image id[, configuration]); order of patches matters.

    The default configuration passes None and adds nothing: its keys are those of builds made before
    configurations existed."""
    fields: dict[str, Any] = {
        "sha": sha,
        "patches": list(patch_digests),
        "flags": list(configure_flags),
        "image": image_id,
        "recipe": RECIPE_VERSION,
    }
    if configuration is not None:
        fields["configuration"] = dict(configuration)
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class CacheEntry:
    """One cached build (a :class:`~pystats_harness.infra.runner.Interpreter`)."""

    path: Path

    @property
    def key(self) -> str:
        return self.path.name

    @property
    def install_dir(self) -> Path:
        return self.path / "install"

    @property
    def source_dir(self) -> Path:
        """The subset of the source tree that tools such as summarize_stats.py need."""
        return self.path / "src"

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    @property
    def names_path(self) -> Path:
        return self.path / "names.json"

    @property
    def runtime_path(self) -> Path:
        """The configuration's run-time switch (written before the fingerprint runs; absent: none)."""
        return self.path / "runtime.json"

    def runtime_switch(self) -> RuntimeSwitch:
        """What every run of this build adds (the configuration's ``-X uops``, say)."""
        if not self.runtime_path.is_file():
            return RuntimeSwitch()
        doc = read_json_cached(self.runtime_path)
        return RuntimeSwitch(tuple(doc.get("args", ())), dict(doc.get("env", {})))

    def complete(self) -> bool:
        return (self.path / MARKER).is_file()

    def manifest(self) -> dict[str, Any]:
        """The manifest (read once per file version: runs ask for it many times; do not mutate it)."""
        manifest: dict[str, Any] = read_json_cached(self.manifest_path)
        return manifest

    def image_id(self) -> str:
        """The builder image the entry was built in (and its runs use)."""
        return str(self.manifest()["image"]["id"])

    def names(self) -> NameTables | None:
        """The build's own opcode/family/failure-kind tables (None for an entry without names.json)."""
        if not self.names_path.is_file():
            return None
        return _names(self.names_path, self.names_path.stat().st_mtime_ns)

    def stats_metadata(self, rev: str | None = None) -> dict[str, Any]:
        """What a collection of this build's dumps records about where they came from."""
        return _stats_metadata(self.manifest(), self.key, rev)

    def facts(self) -> BuildFacts:
        """What the outputs of a run need to know about this build, small and picklable (for a cluster)."""
        return BuildFacts(self.key, dict(self.manifest()), self.names())


class BuildInfo(Protocol):
    """What writing outputs needs of a build: a :class:`CacheEntry`, or its :class:`BuildFacts` elsewhere."""

    @property
    def key(self) -> str: ...

    def manifest(self) -> dict[str, Any]: ...

    def names(self) -> NameTables | None: ...

    def stats_metadata(self, rev: str | None = None) -> dict[str, Any]: ...


@dataclass(frozen=True)
class BuildFacts:
    """A build described without its files: key, manifest and name tables (what a cluster worker sends)."""

    build_key: str
    manifest_doc: dict[str, Any]
    name_tables: NameTables | None

    @property
    def key(self) -> str:
        return self.build_key

    def manifest(self) -> dict[str, Any]:
        return self.manifest_doc

    def names(self) -> NameTables | None:
        return self.name_tables

    def stats_metadata(self, rev: str | None = None) -> dict[str, Any]:
        return _stats_metadata(self.manifest_doc, self.build_key, rev)


def _stats_metadata(manifest: dict[str, Any], key: str, rev: str | None) -> dict[str, Any]:
    return {
        "revision": rev or manifest["revision"],
        "configuration": manifest.get("configuration", "default"),
        "sha": manifest["sha"],
        "python_version": manifest["python"].get("version"),
        "build_key": key,
        "patches": [p["id"] for p in manifest["patches"]],
        **({"upstream": [u["describe"] for u in manifest["upstream"]]} if manifest.get("upstream") else {}),
    }


@functools.lru_cache(maxsize=16)
def _names(path: Path, mtime_ns: int) -> NameTables:
    """Name tables, parsed once per version of names.json (every run of a validation asks)."""
    return NameTables.from_dict(json.loads(path.read_text()))


def lookup(builds_dir: Path, key: str) -> CacheEntry | None:
    """The complete entry for ``key``, or None (an entry without its marker does not count).

    A found entry is marked used now and in use by this invocation (``invoke cache prune`` leaves it
    alone); the mark is taken before the marker is checked, so a prune cannot remove it in between."""
    locks.use(builds_dir, key)
    entry = CacheEntry(builds_dir / key)
    if entry.complete():
        return entry
    locks.release(builds_dir, key)
    return None


@contextlib.contextmanager
def staging(builds_dir: Path, key: str) -> Iterator[Path]:
    """A private staging directory for a build; removed unless :func:`commit` moved it."""
    builds_dir.mkdir(parents=True, exist_ok=True)
    reap_dead(builds_dir, ".staging-")
    path = builds_dir / f".staging-{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def commit(builds_dir: Path, key: str, staged: Path) -> CacheEntry:
    """Move a finished staging dir into place, then write the completion marker last."""
    final = builds_dir / key
    if final.exists():
        if (final / MARKER).exists():
            return CacheEntry(final)  # someone else finished the same build first
        shutil.rmtree(final)
    os.replace(staged, final)
    (final / MARKER).write_text("complete\n")
    return CacheEntry(final)
