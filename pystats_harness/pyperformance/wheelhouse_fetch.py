"""Fetching the benchmark wheelhouse ``<wheelhouse_dir>/benchmarks/`` from the package index, on the host
(the logic of scripts/make_benchmark_wheelhouse.py; :mod:`.wheelhouse_ensure` runs it when first needed):

  tools/      pyperformance==1.14.0 (the benchmark scripts) and pip (run from its wheel in containers)
  files/      every pinned requirement: the wheel for that X.Y and this arch where one exists (pure or
              compiled), and the sdist of every package without a pure wheel (built in the builder image)
  build/      the sdists' build requirements (pure wheels where they exist), pip's --find-links
  locks/X.Y/bm_NAME.txt   each benchmark's requirements fully resolved for X.Y (exact pins)
  locks/X.Y-development/bm_NAME.txt   the same, resolved as the index stood in the month after the
              newest of the benchmark's own pins was published (for development interpreters, see
              :func:`era`; its first line ``# index as of YYYY-MM-DD``), or bm_NAME.none: why none could be made
  locks/…/bm_NAME.fallback.txt   beside a lock naming a package of configs/sites.toml's constraint fallbacks:
              resolved again with the constraint (:mod:`.locks`)
  index.json  per X.Y: the locks (sha256) and, per pin, its wheel, its sdist and why there is none

Idempotent: a lock that exists is kept and a pin in index.json with its files present is not fetched again,
so a second run asks the index nothing. Resolution and downloads are :mod:`.package_index`'s.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import datetime
import json
import platform
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pystats_harness.infra.fs import sha256_file, write_json_atomic, write_text_atomic
from pystats_harness.pyperformance.locks import AS_OF_PREFIX, add_fallbacks, every_pin, lock_entry, lock_pins
from pystats_harness.pyperformance.package_index import (
    download,
    is_pure,
    published_before,
    pure_args,
    resolve,
    sdist_build_requires,
    wheel_args,
)

#: A progress callback: one line of text.
Say = Callable[[str], None]

PYPERFORMANCE_VERSION = "1.14.0"
PIP_VERSION = "26.3"
#: Development interpreters older than what current tools assume of a 3.12 (pip >= 23.1 passes
#: shutil.rmtree(onexc=), newer setuptools needs tarfile.data_filter) get the pip and the build tools of
#: 2022; which interpreter gets which is interpreters.installer_for's (by pkgutil.ImpImporter, which the
#: tools of 2022 import); sdists whose build needs newer tools are reported as such.
DEVELOPMENT_PIP_VERSION = "23.0.1"
DEVELOPMENT_CONSTRAINTS = ("setuptools==65.6.3", "wheel==0.38.4")
#: Development interpreters without pkgutil.ImpImporter (which the tools of 2022 import), on which the
#: current pip fails (warnings.deprecated, a development version it cannot parse): the pip of mid-2023,
#: and the newest build tools whose vendored packaging (24.2) does not import warnings.deprecated on a
#: 3.13 (packaging 26 does; setuptools 84 vendors it) but new enough for every sdist's build requirements
#: (markupsafe 3.0.4: setuptools>=77; msgpack 1.2.4: >=78.1.1; charset-normalizer: <84.3).
DEVELOPMENT_2023_PIP_VERSION = "23.2.1"
DEVELOPMENT_2023_CONSTRAINTS = ("setuptools==80.9.0", "wheel==0.45.1")
#: Bumped when the tools the index names change: a wheelhouse marked complete with older tools is made
#: again (fetching only what it lacks).
TOOLS = 5
#: The earliest month :func:`era` considers (every benchmark pin of pyperformance 1.14 is newer).
ERA_START = datetime.date(2015, 1, 1)
SCHEMA = "pystats-harness/benchmark-wheelhouse/1"
DEFAULT_VERSIONS = ("3.11", "3.12", "3.13")
#: pip downloads at once (each pin's calls are independent; an sdist's metadata step is CPU-bound).
DOWNLOAD_WORKERS = 4


def month_starts(first: datetime.date, today: datetime.date) -> list[datetime.date]:
    """Pure: the first day of every month from ``first``'s to the one after ``today``'s."""
    months = [first.replace(day=1)]
    while months[-1] <= today:
        months.append((months[-1] + datetime.timedelta(days=32)).replace(day=1))
    return months


def era(requirements: list[str], version: str, arch: str, today: datetime.date) -> str | None:
    """The first day of the month after the newest of ``requirements`` was published (``YYYY-MM-DD``), or
    None if not all are published. A development interpreter takes its benchmarks' pins with what they
    need as the index stood then: their dependencies' later releases assume the final release of the
    interpreter's X.Y (click 8.2+ passes ``TypeVar(default=)``, packaging 26 imports
    ``warnings.deprecated`` on any 3.13), which a development build of that X.Y may not have."""
    months = month_starts(ERA_START, today)
    found = bisect.bisect_left(
        months, True, key=lambda day: published_before(requirements, version, arch, day.isoformat())
    )
    return months[found].isoformat() if found < len(months) else None


def development_lock(root: Path, version: str, bench: str, lines: list[str], arch: str, today: datetime.date) -> dict:
    """The development lock of ``bench`` on ``version`` (kept once written), as an index entry."""
    lock = root / "locks" / f"{version}-development" / f"{bench}.txt"
    none = lock.with_suffix(".none")  # why there is none, kept like a lock: a second run asks nothing
    if none.is_file():
        return {"lock": None, "note": none.read_text().strip()}
    if not lock.is_file():
        lock.parent.mkdir(parents=True, exist_ok=True)
        as_of = era(lines, version, arch, today)
        try:
            if as_of is None:
                raise RuntimeError(f"not every one of {lines} is published")
            pins = resolve(lines, version, arch, as_of=as_of)
        except RuntimeError as exc:
            write_text_atomic(none, f"{exc}\n")
            return {"lock": None, "note": str(exc)}
        write_text_atomic(lock, f"{AS_OF_PREFIX}{as_of}\n" + "".join(f"{pin}\n" for pin in pins))
    return lock_entry(root, lock)


def requirements_of(pyperformance_wheel: Path) -> dict[str, list[str]]:
    """Each benchmark directory's requirements.txt lines (comments and blanks dropped)."""
    found: dict[str, list[str]] = {}
    with zipfile.ZipFile(pyperformance_wheel) as wheel:
        for name in wheel.namelist():
            parts = name.split("/")
            if parts[-1] == "requirements.txt" and len(parts) >= 2 and parts[-2].startswith("bm_"):
                text = wheel.read(name).decode()
                lines = [line.split("#")[0].strip() for line in text.splitlines()]
                found[parts[-2]] = [line for line in lines if line]
    return dict(sorted(found.items()))


def fetch_pin(root: Path, pin: str, version: str, arch: str) -> dict:
    """The wheel for ``version`` (or none), the sdist unless the wheel is pure, and the sdist's build needs."""
    name, _, exact = pin.partition("==")
    entry: dict = {"name": name, "version": exact, "wheel": None, "sdist": None, "sdist_note": None}
    try:
        wheels = download(root / "files", "--no-deps", *wheel_args(version, arch), pin)
        entry["wheel"] = f"files/{wheels[0]}"
    except RuntimeError as exc:
        entry["wheel_note"] = str(exc)
    entry["kind"] = "pure" if entry["wheel"] and is_pure(entry["wheel"]) else "compiled" if entry["wheel"] else "sdist"
    if entry["kind"] == "pure":
        return entry
    if entry["kind"] == "compiled":  # a pure wheel too serves development interpreters (charset-normalizer)
        try:
            entry["pure_wheel"] = f"files/{download(root / 'files', '--no-deps', *pure_args(version), pin)[0]}"
        except RuntimeError:
            entry["pure_wheel"] = None
    try:
        sdists = download(root / "files", "--no-deps", "--no-binary", name, pin)
        entry["sdist"] = f"files/{sdists[0]}"
    except RuntimeError as exc:
        entry["sdist_note"] = f"no sdist could be fetched: {exc}"
        return entry
    entry["build_requires"] = sdist_build_requires(root / entry["sdist"])
    entry["build_files"], entry["build_note"] = fetch_build_requires(root, entry["build_requires"], version, arch)
    return entry


def fetch_build_requires(root: Path, requires: list[str], version: str, arch: str) -> tuple[list[str], str | None]:
    """Pure wheels of the build requirements (with their dependencies); compiled ones for X.Y if need be."""
    for args in (pure_args(version), wheel_args(version, arch)):
        try:
            return [f"build/{n}" for n in download(root / "build", *args, *requires)], None
        except RuntimeError as exc:
            note = str(exc)
    return [], f"build requirements {requires} not available: {note}"


def present(root: Path, entry: dict) -> bool:
    if entry.get("kind") == "compiled" and "pure_wheel" not in entry:
        return False  # recorded before pure alternatives were looked for
    files = [entry.get("wheel"), entry.get("sdist"), entry.get("pure_wheel"), *entry.get("build_files", [])]
    return all((root / f).is_file() for f in files if f)


def prepare_version(
    root: Path,
    version: str,
    requirements: dict[str, list[str]],
    old: dict,
    arch: str,
    pure: dict[str, dict],
    log: Say,
    tick: Say,
) -> dict:
    """Locks and files for one X.Y; what the previous index recorded (files present) is reused, and so is
    a pin that is a pure wheel on another X.Y (``pure``: the same file serves every version). ``log``
    hears what is to be fetched, ``tick`` each pin fetched."""
    packages: dict[str, dict] = dict(old.get("packages", {}))
    benchmarks: dict[str, dict] = {}
    for bench, lines in requirements.items():
        lock = root / "locks" / version / f"{bench}.txt"
        if not lock.is_file():
            lock.parent.mkdir(parents=True, exist_ok=True)
            try:
                pins = resolve(lines, version, arch)
            except RuntimeError as exc:
                benchmarks[bench] = {"lock": None, "note": str(exc)}
                log(f"Python {version} {bench}: {exc}")
                continue
            write_text_atomic(lock, "".join(f"{pin}\n" for pin in pins))  # a lock that exists is kept
        pins = lock_pins(lock.read_text())
        benchmarks[bench] = {"lock": str(lock.relative_to(root)), "sha256": sha256_file(lock), "pins": pins}
    with concurrent.futures.ThreadPoolExecutor(DOWNLOAD_WORKERS) as pool:
        today = datetime.date.today()
        made = pool.map(
            lambda item: development_lock(root, version, item[0], item[1], arch, today), requirements.items()
        )
        for bench, development in zip(requirements, made, strict=True):
            if bench in benchmarks:
                benchmarks[bench]["development"] = development
            if development["lock"] is None:
                log(f"Python {version} {bench}: no development lock: {development['note']}")
    add_fallbacks(root, benchmarks, requirements, version, arch)
    missing, wanted = [], every_pin(benchmarks)
    for pin in wanted:
        if pin in packages and present(root, packages[pin]):
            continue
        if pin in pure and present(root, pure[pin]):
            packages[pin] = pure[pin]
            continue
        missing.append(pin)
    log(f"Python {version}: {len(missing)} of {len(wanted)} pins to fetch")
    with concurrent.futures.ThreadPoolExecutor(DOWNLOAD_WORKERS) as pool:
        fetched = pool.map(lambda pin: fetch_pin(root, pin, version, arch), missing)
        for done, (pin, entry) in enumerate(zip(missing, fetched, strict=True), start=1):
            tick(f"{version} [{done}/{len(missing)}] {pin}: {entry['kind']}")
            packages[pin] = entry
            if entry["kind"] == "pure":
                pure[pin] = entry
    return {"benchmarks": benchmarks, "packages": dict(sorted(packages.items()))}


def tool(root: Path, spec: str) -> str:
    name, _, version = spec.partition("==")
    found = sorted((root / "tools").glob(f"{name}-{version}-*.whl"))
    if found:
        return f"tools/{found[0].name}"
    return f"tools/{download(root / 'tools', '--no-deps', '--only-binary=:all:', spec)[0]}"


def development_tools(root: Path, constraints: Sequence[str] = DEVELOPMENT_CONSTRAINTS) -> list[str]:
    """The pinned build tools of development interpreters, in build/ (pure wheels, no dependencies)."""
    wanted = [spec.replace("==", "-") + "-" for spec in constraints]
    if all(any(p.name.startswith(w) for p in (root / "build").glob("*.whl")) for w in wanted):
        return sorted(f"build/{p.name}" for p in (root / "build").glob("*.whl") if p.name.startswith(tuple(wanted)))
    return [f"build/{n}" for n in download(root / "build", "--no-deps", "--only-binary=:all:", *constraints)]


def make(wheelhouse_dir: Path, versions: Sequence[str], log: Say, tick: Say) -> dict[str, Any]:
    """Fetch what ``<wheelhouse_dir>/benchmarks/`` lacks for ``versions`` (X.Y); the index written.
    Raises RuntimeError (pip's or uv's one line) when the index cannot be reached."""
    root = (wheelhouse_dir / "benchmarks").resolve()
    root.mkdir(parents=True, exist_ok=True)
    index_path = root / "index.json"
    old = json.loads(index_path.read_text()) if index_path.is_file() else {}
    arch = platform.machine()
    pyperformance = tool(root, f"pyperformance=={PYPERFORMANCE_VERSION}")
    index: dict[str, Any] = {
        "schema": SCHEMA,
        "arch": arch,
        "pyperformance": {"version": PYPERFORMANCE_VERSION, "wheel": pyperformance},
        "pip": tool(root, f"pip=={PIP_VERSION}"),
        "development": {
            "pip": tool(root, f"pip=={DEVELOPMENT_PIP_VERSION}"),
            "constraints": list(DEVELOPMENT_CONSTRAINTS),
            "build_files": development_tools(root),
        },
        "development_2023": {
            "pip": tool(root, f"pip=={DEVELOPMENT_2023_PIP_VERSION}"),
            "constraints": list(DEVELOPMENT_2023_CONSTRAINTS),
            "build_files": development_tools(root, DEVELOPMENT_2023_CONSTRAINTS),
        },
        "requirements": requirements_of(root / pyperformance),
        "versions": dict(old.get("versions", {})),  # X.Y not asked for this time are kept
    }
    for version in versions:
        previous = old.get("versions", {}).get(version, {})
        pure = {
            pin: entry
            for other in index["versions"].values()
            for pin, entry in other.get("packages", {}).items()
            if entry.get("kind") == "pure"
        }
        index["versions"][version] = prepare_version(
            root, version, index["requirements"], previous, arch, pure, log, tick
        )
        write_json_atomic(index_path, index, sort_keys=True)  # after each X.Y: an interrupted run keeps what it fetched
    return index
