"""The patch series: which changes a source tree needs, found by probing the tree.

`load_series` reads configs/patch-series.toml; `plan_patches` is a pure function of a file
reader, the series and the user's request; `render` shows the plan as a rich table.
"""

from __future__ import annotations

import enum
import hashlib
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from rich.markup import escape
from rich.table import Table

from pystats_harness.errors import ConfigError, PatchError, RevisionUnsupported
from pystats_harness.resources import PATCH_SERIES

DEFAULT_SERIES_PATH = PATCH_SERIES

Reader: TypeAlias = Callable[[str], "str | None"]  # relpath -> text, None if no such file
Requested: TypeAlias = "Literal['auto', 'none'] | Sequence[str]"


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


class Action(enum.Enum):
    APPLY = "apply"
    PRESENT = "already present"
    NOT_APPLICABLE = "not applicable"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Decision:
    change: str
    action: Action
    variant: str | None
    reason: str


@dataclass(frozen=True)
class PlannedPatch:
    change: str
    variant: str
    path: Path
    sha256: str


@dataclass(frozen=True)
class PatchPlan:
    decisions: tuple[Decision, ...]
    patches: tuple[PlannedPatch, ...]  # in application order

    @property
    def patch_paths(self) -> list[Path]:
        return [p.path for p in self.patches]

    @property
    def series_digest(self) -> str:
        """sha256 over the ordered (change, variant, patch sha256) triples; the same for
        every unpatched build (no patches planned)."""
        h = hashlib.sha256()
        for p in self.patches:
            h.update(f"{p.change}\t{p.variant}\t{p.sha256}\n".encode())
        return h.hexdigest()

    def decision(self, change: str) -> Decision:
        return next(d for d in self.decisions if d.change == change)


# --- loading ---------------------------------------------------------------------------


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
    patches_dir = patches_dir or path.resolve().parent.parent / "patches"
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


# --- planning --------------------------------------------------------------------------


def dir_reader(root: Path) -> Reader:
    """A reader for a checked-out tree: text of root/relpath, or None if it is no file."""

    def read(relpath: str) -> str | None:
        p = root / relpath
        return p.read_text(errors="replace") if p.is_file() else None

    return read


def _memo(read: Reader) -> Reader:
    cache: dict[str, str | None] = {}

    def cached(relpath: str) -> str | None:
        if relpath not in cache:
            cache[relpath] = read(relpath)
        return cache[relpath]

    return cached


def _check_all(read: Reader, probes: Sequence[SourceProbe]) -> tuple[bool, str]:
    notes = []
    for probe in probes:
        ok, note = probe.check(read)
        if not ok:
            return False, note
        notes.append(note)
    return True, "; ".join(notes)


def parse_requested(text: str) -> Requested:
    """'auto', 'none' or a comma-separated list of change ids (as given on a command line)."""
    text = text.strip()
    if text in ("auto", "none"):
        return text
    return [part.strip() for part in text.split(",") if part.strip()]


def _selected(series: Series, requested: Requested) -> set[str]:
    if requested == "auto":
        return set(series.ids)
    if requested == "none":
        return set()
    if isinstance(requested, str):
        raise ConfigError(f"patches must be 'auto', 'none' or a list of change ids, not {requested!r}")
    unknown = [r for r in requested if r not in series.ids]
    if unknown:
        raise ConfigError(f"unknown patch change(s) {', '.join(unknown)}; known: {', '.join(series.ids)}")
    return set(requested)


def _decide(change: Change, read: Reader, selected: bool, state: dict[str, Decision]) -> Decision:
    for group in change.present:
        ok, note = _check_all(read, group.probes)
        if ok:
            return Decision(change.id, Action.PRESENT, None, f"{group.label}: {note}")
    if not selected:
        return Decision(change.id, Action.SKIPPED, None, "not requested")
    misses = []
    for v in change.variants:
        unmet = [r for r in v.requires if state[r].action not in (Action.APPLY, Action.PRESENT)]
        if unmet:
            misses.append(f"{v.id}: needs {', '.join(f'{r} ({state[r].action.value})' for r in unmet)}")
            continue
        ok, note = _check_all(read, v.probes)
        if not ok:
            misses.append(f"{v.id}: {note}")
            continue
        if v.patch_sha256 is None:
            raise PatchError(f"{change.id}: variant {v.id} fits this tree but its patch {v.patch} is missing")
        needs = f"; on top of {', '.join(v.requires)}" if v.requires else ""
        return Decision(change.id, Action.APPLY, v.id, f"{note}{needs}")
    return Decision(change.id, Action.NOT_APPLICABLE, None, "no variant fits: " + " | ".join(misses or ["no variants"]))


def plan_patches(read: Reader, series: Series, requested: Requested = "auto") -> PatchPlan:
    """Decide, change by change in series order, what to do with the tree `read` gives.

    Raises RevisionUnsupported if the tree has no --enable-pystats, ConfigError for an
    unknown change id, PatchError if an explicitly requested change cannot be applied."""
    read = _memo(read)
    ok, note = _check_all(read, series.supported.probes)
    if not ok:
        raise RevisionUnsupported(
            f"this revision has no pystats ({note}); --enable-pystats exists from "
            "CPython 3.11.0a4 on: choose a later revision"
        )
    selected = _selected(series, requested)
    state: dict[str, Decision] = {}
    patches: list[PlannedPatch] = []
    for change in series.changes:
        decision = _decide(change, read, change.id in selected, state)
        explicit = requested not in ("auto", "none") and change.id in selected
        if explicit and decision.action is Action.NOT_APPLICABLE:
            raise PatchError(f"requested change {change.id} cannot be applied to this revision: {decision.reason}")
        if decision.action is Action.APPLY:
            v = next(v for v in change.variants if v.id == decision.variant)
            patches.append(PlannedPatch(change.id, v.id, v.patch, v.patch_sha256 or ""))
        state[change.id] = decision
    return PatchPlan(tuple(state.values()), tuple(patches))


_STYLE = {Action.APPLY: "bold green", Action.PRESENT: "cyan", Action.NOT_APPLICABLE: "yellow", Action.SKIPPED: "dim"}


def render(plan: PatchPlan, title: str = "Patch plan") -> Table:
    """A table for `invoke patches --rev REV`: change, action, variant, reason."""
    table = Table(title=title, caption=f"series digest {plan.series_digest[:16]}", show_lines=True)
    table.add_column("change", no_wrap=True)
    table.add_column("action", no_wrap=True)
    table.add_column("variant", no_wrap=True)
    table.add_column("reason")
    for d in plan.decisions:
        table.add_row(d.change, f"[{_STYLE[d.action]}]{d.action.value}[/]", d.variant or "-", escape(d.reason))
    return table
