"""A benchmark's lock files in the wheelhouse: their text read into a :class:`Lock`, and the fallback locks
(``bm_NAME.fallback.txt`` beside a release or development lock) made with configs/sites.toml's constraints."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pystats_harness.infra.fs import sha256_file, write_text_atomic
from pystats_harness.pyperformance import fallbacks as site_fallbacks
from pystats_harness.pyperformance.package_index import resolve

#: The first line of a development lock: the day before which the index was read.
AS_OF_PREFIX = "# index as of "
#: The line of a fallback lock (``bm_NAME.fallback.txt`` beside a lock) that names the constraints it added.
FALLBACK_PREFIX = "# fallback: "


def lock_pins(text: str) -> list[str]:
    """Pure: the pins of a lock file's text (comment lines skipped)."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def lock_fallback(text: str) -> str | None:
    """Pure: the constraints a fallback lock added (``pydantic<2``), or None (not a fallback lock)."""
    found = [line for line in text.splitlines()[:2] if line.startswith(FALLBACK_PREFIX)]
    return found[0].removeprefix(FALLBACK_PREFIX) if found else None


def lock_as_of(text: str) -> str | None:
    """Pure: the day a development lock read the index as of, or None (a release lock)."""
    first = text.splitlines()[0] if text else ""
    return first.removeprefix(AS_OF_PREFIX) if first.startswith(AS_OF_PREFIX) else None


@dataclass(frozen=True)
class Lock:
    benchmark: str
    python: str  # X.Y
    pins: tuple[str, ...]
    sha256: str
    as_of: str | None = None  # a development lock: the index as it stood before this day (YYYY-MM-DD)
    fallback: str | None = None  # a fallback lock: the constraints it added (configs/sites.toml)

    def describe(self) -> str:
        """``3.13 lock``, ``3.13 development lock (index as of 2024-11-01)``, ``…, with pydantic<2``."""
        found = (
            f"{self.python} lock"
            if self.as_of is None
            else f"{self.python} development lock (index as of {self.as_of})"
        )
        return found if self.fallback is None else f"{found}, with {self.fallback}"


def fallback_lock(
    root: Path, lock: Path, lines: list[str], version: str, arch: str, wanted: list[site_fallbacks.Fallback]
) -> dict | None:
    """Beside ``lock`` (a release or development lock), ``bm_NAME.fallback.txt``: the benchmark's
    requirements resolved again with the constraints of ``wanted`` (configs/sites.toml, for an interpreter
    that cannot have the packages they avoid), as of the same day; kept while it names the same
    constraints. None when nothing applies; an entry with ``lock: None`` and the reason when it cannot be
    resolved."""
    if not wanted:
        return None
    path = lock.with_name(lock.name.removesuffix(".txt") + ".fallback.txt")
    constraints = [f.constraint for f in wanted]
    header = f"{FALLBACK_PREFIX}{', '.join(constraints)}"
    as_of = lock_as_of(lock.read_text())
    if not path.is_file() or header not in path.read_text().splitlines()[:2]:
        try:
            pins = resolve([*lines, *constraints], version, arch, as_of=as_of)
        except RuntimeError as exc:
            return {"lock": None, "note": str(exc), "packages": [f.package for f in wanted]}
        first = f"{AS_OF_PREFIX}{as_of}\n" if as_of else ""
        write_text_atomic(path, first + header + "\n" + "".join(f"{pin}\n" for pin in pins))
    return {**lock_entry(root, path), "packages": [f.package for f in wanted]}


def lock_entry(root: Path, path: Path) -> dict:
    """The index entry of a lock file under ``root``: its path, sha256, pins and day (development)."""
    text = path.read_text()
    return {
        "lock": str(path.relative_to(root)),
        "sha256": sha256_file(path),
        "pins": lock_pins(text),
        "as_of": lock_as_of(text),
    }


def with_fallback(
    root: Path, entry: dict, lines: list[str], version: str, arch: str, declared: dict[str, site_fallbacks.Fallback]
) -> dict:
    """A lock's index entry with its fallback lock (``fallback``) where configs/sites.toml names one of its pins."""
    if not entry.get("lock"):
        return entry
    made = fallback_lock(
        root, root / entry["lock"], lines, version, arch, site_fallbacks.constraints_for(entry["pins"], declared)
    )
    return entry if made is None else {**entry, "fallback": made}


def add_fallbacks(
    root: Path, benchmarks: dict[str, dict], requirements: dict[str, list[str]], version: str, arch: str
) -> None:
    """Each benchmark's release and development lock entry in ``benchmarks`` (index entries of X.Y
    ``version``) with its fallback lock, where configs/sites.toml names one of its pins."""
    declared = site_fallbacks.serving(site_fallbacks.load(), version)
    for bench, entry in benchmarks.items():
        lines = requirements[bench]
        entry.update(with_fallback(root, entry, lines, version, arch, declared))
        if "development" in entry:
            entry["development"] = with_fallback(root, entry["development"], lines, version, arch, declared)


def every_pin(benchmarks: dict[str, dict]) -> list[str]:
    """Pure: the pins of every lock of X.Y's index entries (release, development, and their fallbacks)."""
    every_lock = [
        e
        for entry in benchmarks.values()
        for lock in (entry, entry.get("development", {}))
        for e in (lock, lock.get("fallback") or {})
    ]
    return sorted({pin for entry in every_lock for pin in entry.get("pins", [])})
