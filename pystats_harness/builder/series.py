"""The patch series as declared in configs/patch-series.toml: changes, their variants, and the
source probes that tell whether a variant fits a tree (or the change is already there).

:func:`load_series` reads and checks the file; planning is in :mod:`pystats_harness.builder.patches`.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from pystats_harness.errors import ConfigError
from pystats_harness.resources import PATCH_SERIES, PATCHES_DIR

DEFAULT_SERIES_PATH = PATCH_SERIES

Reader: TypeAlias = Callable[[str], "str | None"]  # relpath -> text, None if no such file


@dataclass(frozen=True)
class SourceProbe:
    """A file of the tree must exist and `pattern` must (or must not) match it."""

    file: str
    pattern: str
    must_match: bool = True

    def check(self, read: Reader) -> tuple[bool, str]:
        text = read(self.file)
        if text is None:
            return False, f"{self.file} missing"
        found = re.search(self.pattern, text, re.MULTILINE) is not None
        verb = "matches" if found else "does not match"
        return found == self.must_match, f"{self.file} {verb} /{self.pattern}/"


@dataclass(frozen=True)
class ProbeGroup:
    label: str
    probes: tuple[SourceProbe, ...]


@dataclass(frozen=True)
class Variant:
    id: str
    patch: Path
    patch_sha256: str | None  # None: the patch file does not exist (yet)
    description: str
    probes: tuple[SourceProbe, ...]
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Change:
    id: str
    order: int
    upstream: str
    title: str
    present: tuple[ProbeGroup, ...]
    variants: tuple[Variant, ...]


@dataclass(frozen=True)
class Series:
    supported: ProbeGroup
    changes: tuple[Change, ...]  # sorted by order

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.changes)


def _probes(raw: Any, where: str) -> tuple[SourceProbe, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: 'probes' must be a non-empty list of {{file, match|no_match}}")
    out = []
    for item in raw:
        if not isinstance(item, dict) or "file" not in item or len(item.keys() & {"match", "no_match"}) != 1:
            raise ConfigError(f"{where}: each probe needs 'file' and exactly one of 'match'/'no_match': {item!r}")
        must = "match" in item
        pattern = item["match" if must else "no_match"]
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"{where}: bad regex {pattern!r}: {exc}") from None
        out.append(SourceProbe(item["file"], pattern, must))
    return tuple(out)


def _sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def load_series(path: Path = DEFAULT_SERIES_PATH, patches_dir: Path | None = None) -> Series:
    """Read and check the series file; patch paths are relative to `patches_dir`
    (default: patches/ beside the configs/ directory holding the file)."""
    patches_dir = patches_dir or (PATCHES_DIR if path == PATCH_SERIES else path.resolve().parent.parent / "patches")
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read patch series {path}: {exc}") from None
    try:
        sup = data["supported"]
        supported = ProbeGroup(
            sup.get("description", "pystats supported"), _probes(sup.get("probes"), f"{path} [supported]")
        )
        changes: list[Change] = []
        for raw in data["change"]:
            cid = raw["id"]
            where = f"{path} change {cid!r}"
            present = tuple(
                ProbeGroup(g["label"], _probes(g.get("probes"), f"{where} present")) for g in raw.get("present", [])
            )
            variants = tuple(
                Variant(
                    v["id"],
                    patches_dir / v["patch"],
                    _sha256(patches_dir / v["patch"]),
                    v.get("description", ""),
                    _probes(v.get("probes"), f"{where} variant {v['id']!r}"),
                    tuple(v.get("requires", ())),
                )
                for v in raw.get("variant", [])
            )
            changes.append(Change(cid, int(raw["order"]), raw["upstream"], raw.get("title", ""), present, variants))
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"patch series {path} is malformed: missing or bad field {exc}") from None
    changes.sort(key=lambda c: c.order)
    if len({c.id for c in changes}) != len(changes) or len({c.order for c in changes}) != len(changes):
        raise ConfigError(f"patch series {path}: change ids and orders must be unique")
    seen: list[str] = []
    for c in changes:
        for v in c.variants:
            for req in v.requires:
                if req not in seen:
                    raise ConfigError(
                        f"patch series {path}: {c.id}/{v.id} requires {req!r}, "
                        f"which is not an earlier change (earlier: {', '.join(seen) or 'none'})"
                    )
        seen.append(c.id)
    return Series(supported, tuple(changes))
