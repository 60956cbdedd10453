"""The benchmark wheelhouse (``<wheelhouse_dir>/benchmarks/``, made by scripts/make_benchmark_wheelhouse.py):
its index and locks read into typed data, and the pure choice of what to install for one interpreter.

A final (or release-candidate) interpreter takes the wheels of its X.Y, pure or compiled. A development
interpreter (``3.12.0a3+``) reports the release's wheel tags, but its C ABI may differ from the
release's, so only pure wheels serve it: compiled packages are built from their sdist against it.

Which pip and build tools install them (:func:`.interpreters.installer_for`) depends on the interpreter's
stdlib, not on its version string alone. Where a pin cannot be had for an interpreter whose ABI is not
its release's, :meth:`Wheelhouse.plan` takes its fallback of configs/sites.toml (:mod:`.fallbacks`).
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.pyperformance import fallbacks as site_fallbacks
from pystats_harness.pyperformance.errors import WheelMissing
from pystats_harness.pyperformance.interpreters import Installer, is_development, short_version
from pystats_harness.pyperformance.locks import Lock, lock_as_of, lock_fallback, lock_pins

SCHEMA = "pystats-harness/benchmark-wheelhouse/1"
SCRIPT = "scripts/make_benchmark_wheelhouse.py"
#: Where the benchmark wheelhouse is mounted (read-only) in the containers that prepare sites.
MOUNT = "/wheels/benchmarks"


class Kind(enum.StrEnum):
    """What the wheelhouse holds for one pin on one X.Y."""

    PURE = "pure"  # a py3-none-any wheel: every interpreter
    COMPILED = "compiled"  # a wheel compiled for that X.Y (and its sdist, for development interpreters)
    SDIST = "sdist"  # no wheel for that X.Y: only the sdist


class Source(enum.StrEnum):
    WHEEL = "wheel"
    SDIST = "sdist"


#: Where the index keeps each development installer's pip and constraints (the current tools: ``pip``).
_INDEX_KEYS = {Installer.OF_2022: "development", Installer.OF_2023: "development_2023"}


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
class SitePlan:
    """What a benchmark's site is made of on one interpreter (pure data; its digest keys the cache).
    ``used``: the fallbacks (configs/sites.toml) the plan took; ``on_failure``: those the driver may take
    when an sdist does not build (by package)."""

    lock: Lock
    choices: tuple[Choice, ...]
    used: tuple[site_fallbacks.Used, ...] = ()
    on_failure: tuple[site_fallbacks.Fallback, ...] = ()

    def digest(self) -> str:
        payload = json.dumps([self.lock.sha256, [(c.file, c.source) for c in self.choices]])
        if self.used or self.on_failure:  # digests of sites planned without fallbacks stay as they were
            payload += json.dumps([[u.to_dict() for u in self.used], [f.to_driver() for f in self.on_failure]])
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


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

    def lock(self, python: str, benchmark: str, development: bool = False, fallback: bool = False) -> Lock | None:
        """The benchmark's lock on X.Y ``python``; ``development``: its development lock where the
        wheelhouse has one (see wheelhouse_fetch.era), else the release lock; ``fallback``: that lock's
        fallback lock (resolved with configs/sites.toml's constraints), None if it has none."""
        entry = self.index["versions"].get(python, {}).get("benchmarks", {}).get(benchmark)
        if entry is None or entry.get("lock") is None:
            raise self.missing(f"the lock of {benchmark}", python)
        development_entry = entry.get("development") or {}
        chosen = development_entry if development and development_entry.get("lock") else entry
        if fallback:
            chosen = chosen.get("fallback") or {}
            if not chosen.get("lock"):
                return None
        path = self._file(chosen["lock"], f"the lock of {benchmark}", python)
        text = path.read_text()
        return Lock(
            benchmark,
            python,
            tuple(lock_pins(text)),
            hashlib.sha256(text.encode()).hexdigest(),
            lock_as_of(text),
            lock_fallback(text),
        )

    def plan(
        self,
        python_version: str,
        benchmark: str,
        free_threaded: bool = False,
        declared: Mapping[str, site_fallbacks.Fallback] | None = None,
    ) -> SitePlan | Unavailable:
        """Pure but for reading the index and checking that the chosen files exist (``free_threaded``: the
        interpreter's ABI is ``cp3Nt``: compiled packages come from their sdists, as for a development one).
        Where the release's ABI is not the interpreter's, a pin nothing can serve takes its fallback of
        ``declared`` (configs/sites.toml): the fallback lock, or the site without it."""
        python = short_version(python_version)
        development = is_development(python_version)
        other_abi = free_threaded or development
        declared = {} if not other_abi else site_fallbacks.load() if declared is None else declared
        declared = site_fallbacks.serving(declared, python)
        lock = self.lock(python, benchmark, development=development)
        assert lock is not None
        used: list[site_fallbacks.Used] = []
        left_out: set[str] = set()
        while True:
            found = self._choices(lock, benchmark, other_abi, left_out)
            if not isinstance(found, Unavailable):
                break
            fallback = declared.get(found.package)
            if fallback is None:
                return found
            because = f"{found.package}: {found.reason}"
            if fallback.kind is site_fallbacks.Kind.CONSTRAINT and not any(u.package == found.package for u in used):
                alternative = self.lock(python, benchmark, development=development, fallback=True)
                if alternative is None:
                    return found
                lock = alternative
            elif fallback.kind is site_fallbacks.Kind.OMIT and found.package not in left_out:
                left_out.add(found.package)
            else:
                return found
            used.append(site_fallbacks.Used(found.package, fallback.describe(), fallback.why, because))
        on_failure = tuple(
            declared[c.package]
            for c in found
            if c.source is Source.SDIST
            and c.package in declared
            and declared[c.package].kind in (site_fallbacks.Kind.ENV, site_fallbacks.Kind.OMIT)
        )
        return SitePlan(lock, tuple(found), tuple(used), on_failure)

    def _choices(self, lock: Lock, benchmark: str, other_abi: bool, left_out: set[str]) -> list[Choice] | Unavailable:
        packages = self.index["versions"][lock.python].get("packages", {})
        choices = []
        for pin in lock.pins:
            if pin.partition("==")[0] in left_out:
                continue
            if pin not in packages:
                raise self.missing(pin, lock.python, benchmark)
            choice = choose(PackageFiles.from_dict(packages[pin]), other_abi)
            if isinstance(choice, Unavailable):
                return choice
            self._file(choice.file, pin, lock.python, benchmark)
            choices.append(choice)
        return choices

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
