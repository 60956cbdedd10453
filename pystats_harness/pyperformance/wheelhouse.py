"""The benchmark wheelhouse (``<wheelhouse_dir>/benchmarks/``, made by scripts/make_benchmark_wheelhouse.py):
its index and locks read into typed data, and the pure choice of what to install for one interpreter.

A final (or release-candidate) interpreter takes the wheels of its X.Y, pure or compiled. A development
interpreter (``3.12.0a3+``) reports the release's wheel tags, but its C ABI may differ from the
release's, so only pure wheels serve it: compiled packages are built from their sdist against it.

Which pip and build tools install them (:func:`installer_for`) depends on the interpreter, not on its
version string alone. A release takes the current ones. The current ones are wrong for a development
interpreter: pip 26.3 imports ``warnings.deprecated`` on any 3.13 (added to main in November 2023, so
ea72c6fe3b of August 2023 lacks it) and fails to parse a 3.12 development version (``Invalid version:
'0.dev0'`` at fb8739f0b6). The tools of 2022 (pip 23.0.1, setuptools 65.6.3 pinned) import
``pkgutil.ImpImporter``, which CPython removed on 2023-04-28 (e1f14643dc, 3.12.0b1). So a development
interpreter whose ``pkgutil`` still has ``ImpImporter`` (3.11 and early 3.12 development) gets the
tools of 2022, and one without it (later 3.12 and 3.13 development) pip 23.2.1 (July 2023, the pip of
ea72c6fe3b's time) with setuptools 80.9.0 and wheel 0.45.1 pinned (the newest whose vendored packaging
does not import ``warnings.deprecated`` on a 3.13, new enough for every sdist's build requirements).
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.pyperformance.errors import WheelMissing

SCHEMA = "pystats-harness/benchmark-wheelhouse/1"
SCRIPT = "scripts/make_benchmark_wheelhouse.py"
#: Where the benchmark wheelhouse is mounted (read-only) in the containers that prepare sites.
MOUNT = "/wheels/benchmarks"


class Kind(enum.StrEnum):
    """What the wheelhouse holds for one pin on one X.Y."""

    PURE = "pure"  # a py3-none-any wheel: every interpreter
    COMPILED = "compiled"  # a wheel compiled for that X.Y (and its sdist, for development interpreters)
    SDIST = "sdist"  # no wheel for that X.Y: only the sdist


class Installer(enum.StrEnum):
    """The pip and build tools a site is made with."""

    CURRENT = "current"  # the release pip, build requirements as each sdist asks
    OF_2023 = "2023"  # pip 23.2.1, setuptools 80.9.0 / wheel 0.45.1 pinned for every build
    OF_2022 = "2022"  # pip 23.0.1 and setuptools 65.6.3 / wheel 0.38.4 pinned for every build


#: Where the index keeps each development installer's pip and constraints (the current tools: ``pip``).
_INDEX_KEYS = {Installer.OF_2022: "development", Installer.OF_2023: "development_2023"}


def installer_for(python_version: str, has_imp_importer: bool) -> Installer:
    """Pure: a release takes the current tools; a development interpreter the tools of 2022 while its
    ``pkgutil`` has ``ImpImporter`` (they import it), else those of 2023 (the current pip needs a
    newer development stdlib than these have)."""
    if not is_development(python_version):
        return Installer.CURRENT
    return Installer.OF_2022 if has_imp_importer else Installer.OF_2023


#: The first line of a development lock: the day before which the index was read.
AS_OF_PREFIX = "# index as of "


def lock_pins(text: str) -> list[str]:
    """Pure: the pins of a lock file's text (comment lines skipped)."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def lock_as_of(text: str) -> str | None:
    """Pure: the day a development lock read the index as of, or None (a release lock)."""
    first = text.splitlines()[0] if text else ""
    return first.removeprefix(AS_OF_PREFIX) if first.startswith(AS_OF_PREFIX) else None


class Source(enum.StrEnum):
    WHEEL = "wheel"
    SDIST = "sdist"


@dataclass(frozen=True)
class PackageFiles:
    name: str
    version: str
    kind: Kind
    wheel: str | None  # relative to the wheelhouse's benchmarks/ directory
    sdist: str | None
    pure_wheel: str | None = None  # a compiled package's pure-Python wheel, if it has one
    sdist_note: str | None = None  # why there is no sdist
    build_note: str | None = None  # why its build requirements are missing

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PackageFiles:
        return cls(
            name=data["name"],
            version=data["version"],
            kind=Kind(data["kind"]),
            wheel=data.get("wheel"),
            sdist=data.get("sdist"),
            pure_wheel=data.get("pure_wheel"),
            sdist_note=data.get("sdist_note"),
            build_note=data.get("build_note"),
        )


@dataclass(frozen=True)
class Choice:
    """One file to install: a wheel as it is, or an sdist built against the interpreter first."""

    package: str
    version: str
    file: str
    source: Source


@dataclass(frozen=True)
class Unavailable:
    """A pin nothing in the wheelhouse can serve on this interpreter, and why."""

    package: str
    reason: str


@dataclass(frozen=True)
class Lock:
    benchmark: str
    python: str  # X.Y
    pins: tuple[str, ...]
    sha256: str
    as_of: str | None = None  # a development lock: the index as it stood before this day (YYYY-MM-DD)

    def describe(self) -> str:
        """``3.13 lock`` or ``3.13 development lock (index as of 2024-11-01)``."""
        return (
            f"{self.python} lock"
            if self.as_of is None
            else f"{self.python} development lock (index as of {self.as_of})"
        )


@dataclass(frozen=True)
class SitePlan:
    """What a benchmark's site is made of on one interpreter (pure data; its digest keys the cache)."""

    lock: Lock
    choices: tuple[Choice, ...]

    def digest(self) -> str:
        payload = json.dumps([self.lock.sha256, [(c.file, c.source) for c in self.choices]])
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def is_development(version: str) -> bool:
    """Whether a Python version string is a development one (alpha, beta or between tags: ``3.12.0a3+``).

    Release candidates keep the final ABI (it is frozen at rc1), so their X.Y's release wheels serve."""
    return re.fullmatch(r"\d+\.\d+\.\d+(rc\d+)?", version) is None


def short_version(version: str) -> str:
    """``3.12.0a3+`` -> ``3.12``."""
    return ".".join(version.split(".")[:2])


def fetch_command(wheelhouse_dir: Path, python: str) -> str:
    return f"python3 {SCRIPT} {wheelhouse_dir} --versions {python}"


def choose(files: PackageFiles, development: bool) -> Choice | Unavailable:
    """Pure: the file that serves ``files`` on an interpreter, or why none does (``development``: the
    interpreter's C ABI is not its release's -- a development version, or a free-threaded build, whose
    ``cp313t`` ABI no ``cp313`` wheel serves -- so a compiled package is built from its sdist)."""
    if files.wheel and (files.kind is Kind.PURE or (files.kind is Kind.COMPILED and not development)):
        return Choice(files.name, files.version, files.wheel, Source.WHEEL)
    if files.pure_wheel and development:
        return Choice(files.name, files.version, files.pure_wheel, Source.WHEEL)
    if files.sdist and files.build_note:
        return Unavailable(files.name, files.build_note)
    if files.sdist:
        return Choice(files.name, files.version, files.sdist, Source.SDIST)
    if files.kind is Kind.COMPILED:
        why = "compiled; its release wheels may not match a development or free-threaded interpreter's C ABI and there is no sdist"
    else:
        why = "no wheel for this Python version and no sdist"
    return Unavailable(files.name, f"{why}: {files.sdist_note}" if files.sdist_note else why)


@dataclass(frozen=True)
class Wheelhouse:
    """The index of ``<wheelhouse_dir>/benchmarks`` (see scripts/make_benchmark_wheelhouse.py)."""

    wheelhouse_dir: Path
    index: Mapping[str, Any]

    @property
    def root(self) -> Path:
        return self.wheelhouse_dir / "benchmarks"

    @property
    def pyperformance_version(self) -> str:
        return str(self.index["pyperformance"]["version"])

    @property
    def pyperformance_wheel(self) -> Path:
        return self._file(str(self.index["pyperformance"]["wheel"]), "pyperformance", None)

    def pip_wheel(self, installer: Installer) -> Path:
        """The pip wheel of ``installer`` (:func:`installer_for`)."""
        key = _INDEX_KEYS.get(installer)
        if key is None:
            return self._file(str(self.index["pip"]), "pip", None)
        what = f"pip of {installer.value} (for development interpreters)"
        found = self.index.get(key, {}).get("pip")
        if found is None:
            raise self.missing(what, None)
        return self._file(str(found), what, None)

    def build_constraints(self, installer: Installer) -> tuple[str, ...]:
        """Pins of the build tools an sdist build may use with ``installer`` (none for the current tools)."""
        key = _INDEX_KEYS.get(installer)
        return () if key is None else tuple(self.index.get(key, {}).get("constraints", ()))

    def requirements(self, benchmark: str) -> tuple[str, ...] | None:
        """The benchmark's own requirements.txt lines; None if it has no requirements.txt."""
        found = self.index["requirements"].get(benchmark)
        return None if found is None else tuple(found)

    def missing(self, package: str, python: str | None, benchmark: str | None = None) -> WheelMissing:
        needed_by = f" (needed by {benchmark} on Python {python})" if benchmark else ""
        return WheelMissing(
            f"{package}{needed_by} is not in the benchmark wheelhouse {self.root}; "
            f"fetch it with `{fetch_command(self.wheelhouse_dir, python or '3.11,3.12,3.13')}`",
            package=package,
        )

    def lock(self, python: str, benchmark: str, development: bool = False) -> Lock:
        """The benchmark's lock on X.Y ``python``; ``development``: its development lock where the
        wheelhouse has one (see wheelhouse_fetch.era), else the release lock."""
        entry = self.index["versions"].get(python, {}).get("benchmarks", {}).get(benchmark)
        if entry is None or entry.get("lock") is None:
            raise self.missing(f"the lock of {benchmark}", python)
        development_entry = entry.get("development") or {}
        chosen = development_entry if development and development_entry.get("lock") else entry
        path = self._file(chosen["lock"], f"the lock of {benchmark}", python)
        text = path.read_text()
        return Lock(
            benchmark, python, tuple(lock_pins(text)), hashlib.sha256(text.encode()).hexdigest(), lock_as_of(text)
        )

    def plan(self, python_version: str, benchmark: str, free_threaded: bool = False) -> SitePlan | Unavailable:
        """Pure but for reading the index and checking that the chosen files exist (``free_threaded``: the
        interpreter's ABI is ``cp3Nt``: compiled packages come from their sdists, as for a development one)."""
        python = short_version(python_version)
        lock = self.lock(python, benchmark, development=is_development(python_version))
        packages = self.index["versions"][python].get("packages", {})
        choices = []
        for pin in lock.pins:
            if pin not in packages:
                raise self.missing(pin, python, benchmark)
            choice = choose(PackageFiles.from_dict(packages[pin]), free_threaded or is_development(python_version))
            if isinstance(choice, Unavailable):
                return choice
            self._file(choice.file, pin, python, benchmark)
            choices.append(choice)
        return SitePlan(lock, tuple(choices))

    def _file(self, relative: str, package: str, python: str | None, benchmark: str | None = None) -> Path:
        path = self.root / relative
        if not path.is_file():
            raise self.missing(package, python, benchmark)
        return path


def read_wheelhouse(wheelhouse_dir: Path) -> Wheelhouse:
    """The benchmark wheelhouse's index, or WheelMissing naming the command that makes it."""
    path = wheelhouse_dir / "benchmarks" / "index.json"
    try:
        index = json.loads(path.read_text())
    except (OSError, ValueError):
        index = None
    if not isinstance(index, dict) or index.get("schema") != SCHEMA:
        raise Wheelhouse(wheelhouse_dir, {}).missing("pyperformance and the benchmarks' requirements", None)
    return Wheelhouse(wheelhouse_dir, index)
