"""The benchmark wheelhouse made when it is first needed, not by bootstrap: whatever reads it
(``invoke collect``, and ``history``/``bisect`` with pyperformance benchmarks, through
:func:`pystats_harness.pyperformance.sites.benchmark_data_dir`) calls :func:`ensure_benchmark_wheelhouse` first.

Its state (:func:`state`, pure but for reading two files):

* complete: ``benchmarks/complete.json``, written last and atomically after a make that locked every
  benchmark of every X.Y asked, names this schema, this pyperformance and those X.Y;
* missing: no ``benchmarks/`` (or an empty one);
* incomplete: anything else (an interrupted make, or one made before the marker existed).

Missing or incomplete, it is made (again): :func:`pystats_harness.pyperformance.wheelhouse_fetch.make` fetches
only what is not there. One process makes it at a time, under an ``flock`` on
``<wheelhouse_dir>/.locks/benchmarks.build`` (the kernel releases it when its process dies); one that
waits says whose make it waits for, then finds it complete. A make that fails (the package index cannot
be reached, say) is WheelMissing (exit 17) naming the command to run by hand.
"""

from __future__ import annotations

import enum
import errno
import json
import subprocess
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.markup import escape

from pystats_harness.builder.locks import Owner, building
from pystats_harness.errors import DiskFull
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.pyperformance import wheelhouse_fetch as fetch
from pystats_harness.pyperformance.errors import WheelMissing

MARKER = "complete.json"
SCRIPT = "scripts/make_benchmark_wheelhouse.py"
LOCK_KEY = "benchmarks"  # <wheelhouse_dir>/.locks/benchmarks.build (and .owner while held)
#: What makes it: (wheelhouse_dir, X.Y list, log, tick) -> the index written (fetch.make, or a fake in tests).
Maker = Callable[[Path, Sequence[str], fetch.Say, fetch.Say], Mapping[str, Any]]


class State(enum.Enum):
    COMPLETE = "complete"
    MISSING = "missing"
    INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class Progress:
    log: fetch.Say  # what is about to be done, a line each
    tick: fetch.Say  # each pin fetched
    wait: Callable[[Owner | None], None]  # another process is making it: whose make this one waits for


def hand_command(wheelhouse_dir: Path) -> str:
    return f"python3 {SCRIPT} {wheelhouse_dir}"


def marked_versions(wheelhouse_dir: Path) -> frozenset[str]:
    """The X.Y the marker says are complete; none when it is absent or names another schema or pyperformance."""
    try:
        doc = json.loads((wheelhouse_dir / "benchmarks" / MARKER).read_text())
    except (OSError, ValueError):
        return frozenset()
    if not isinstance(doc, dict) or (doc.get("schema"), doc.get("pyperformance"), doc.get("tools", 1)) != (
        fetch.SCHEMA,
        fetch.PYPERFORMANCE_VERSION,
        fetch.TOOLS,
    ):
        return frozenset()
    return frozenset(str(v) for v in doc.get("versions", ()))


def state(wheelhouse_dir: Path, versions: Sequence[str] = fetch.DEFAULT_VERSIONS) -> State:
    root = wheelhouse_dir / "benchmarks"
    if set(versions) <= marked_versions(wheelhouse_dir) and (root / "index.json").is_file():
        return State.COMPLETE
    if not root.is_dir() or not any(root.iterdir()):
        return State.MISSING
    return State.INCOMPLETE


def ensure(
    wheelhouse_dir: Path,
    progress: Progress,
    *,
    versions: Sequence[str] = fetch.DEFAULT_VERSIONS,
    make: Maker = fetch.make,
) -> State:
    """Make the wheelhouse unless it is complete; the state found (COMPLETE: nothing was made here,
    it was there or another process made it meanwhile; MISSING or INCOMPLETE: made now)."""
    found = state(wheelhouse_dir, versions)
    if found is State.COMPLETE:
        return found
    return _locked_make(wheelhouse_dir, progress, versions, make, force=False)


def remake(
    wheelhouse_dir: Path,
    progress: Progress,
    *,
    versions: Sequence[str] = fetch.DEFAULT_VERSIONS,
    make: Maker = fetch.make,
) -> State:
    """Fetch whatever is missing even when the marker says complete (the script run by hand)."""
    return _locked_make(wheelhouse_dir, progress, versions, make, force=True)


def _locked_make(
    wheelhouse_dir: Path, progress: Progress, versions: Sequence[str], make: Maker, *, force: bool
) -> State:
    with building(wheelhouse_dir, LOCK_KEY, "making the benchmark wheelhouse", progress.wait):
        found = state(wheelhouse_dir, versions)
        if found is State.COMPLETE and not force:
            return found  # made by the process this one waited for
        what = f"pyperformance {fetch.PYPERFORMANCE_VERSION} and its benchmarks' requirements for Python {', '.join(versions)}"
        root = wheelhouse_dir / "benchmarks"
        if found is State.COMPLETE:
            progress.log(f"the benchmark wheelhouse {root} is complete: fetching only what it lacks of {what}")
        else:
            progress.log(f"the benchmark wheelhouse {root} is {found.value}: fetching {what}")
        try:
            index = make(wheelhouse_dir, versions, progress.log, progress.tick)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise DiskFull(wheelhouse_dir, "making the benchmark wheelhouse") from exc
            raise failed(wheelhouse_dir, str(exc)) from exc
        except (RuntimeError, ValueError, subprocess.SubprocessError, zipfile.BadZipFile) as exc:
            raise failed(wheelhouse_dir, str(exc)) from exc
        _mark(wheelhouse_dir, versions, index)
    return found


def _mark(wheelhouse_dir: Path, versions: Sequence[str], index: Mapping[str, Any]) -> None:
    """The marker, last: every X.Y asked whose benchmarks all have a lock (plus those marked before);
    WheelMissing names a benchmark whose requirements could not be resolved."""
    unlocked = [
        (version, bench, entry.get("note"))
        for version in versions
        for bench, entry in index.get("versions", {}).get(version, {}).get("benchmarks", {}).items()
        if entry.get("lock") is None
    ]
    done = marked_versions(wheelhouse_dir) | {v for v in versions if v not in {u[0] for u in unlocked}}
    if done:
        write_json_atomic(
            wheelhouse_dir / "benchmarks" / MARKER,
            {
                "schema": fetch.SCHEMA,
                "pyperformance": fetch.PYPERFORMANCE_VERSION,
                "tools": fetch.TOOLS,
                "versions": sorted(done),
                "made": time.strftime("%Y-%m-%dT%H:%M:%S"),
            },
        )
    if unlocked:
        version, bench, note = unlocked[0]
        more = f" (and {len(unlocked) - 1} more)" if len(unlocked) > 1 else ""
        raise failed(wheelhouse_dir, f"the requirements of {bench} on Python {version} did not resolve{more}: {note}")


def failed(wheelhouse_dir: Path, why: str) -> WheelMissing:
    """One line: what could not be made, why, and the command to run by hand."""
    reason = next((line.strip() for line in why.splitlines() if line.strip()), "no reason given")
    return WheelMissing(
        f"the benchmark wheelhouse {wheelhouse_dir / 'benchmarks'} could not be made: {reason}; "
        f"make it by hand with `{hand_command(wheelhouse_dir)}` (it needs the package index)",
        package="the benchmark wheelhouse",
    )


def ensure_benchmark_wheelhouse(ctx: Context, make: Maker = fetch.make, *, python: str | None = None) -> None:
    """Make the benchmark wheelhouse of ``ctx``'s settings unless it is complete (then: nothing, and
    nothing said) for the default X.Y and ``python`` (the X.Y of the interpreter a site is for, e.g.
    ``3.14``: a wheelhouse made before holds its part only once a build of it needs one). Progress: a
    line per X.Y and, on the status line of a terminal or a line each in a log, each pin fetched."""
    wheelhouse_dir = ctx.settings.wheelhouse_dir
    versions = tuple(dict.fromkeys([*fetch.DEFAULT_VERSIONS, *([python] if python else [])]))
    if state(wheelhouse_dir, versions) is State.COMPLETE:
        return
    reporter, start = ctx.reporter, time.perf_counter()

    def waiting(owner: Owner | None) -> None:
        whose = owner.describe() if owner else "another process"
        reporter.info(escape(f"waiting for {whose} to finish the benchmark wheelhouse in {wheelhouse_dir}"))

    def say(text: str) -> None:
        reporter.info(escape(text))

    # a terminal shows each pin on the status line (a line each with --verbose); a log gets a line each
    tick = reporter.line if reporter.console.is_terminal else lambda text: say(f"  {text}")
    progress = Progress(log=say, tick=tick, wait=waiting)
    with reporter.live("benchmark wheelhouse"):
        reporter.phase("benchmark wheelhouse")
        found = ensure(wheelhouse_dir, progress, versions=versions, make=make)
    if found is not State.COMPLETE:
        reporter.phase("benchmark wheelhouse", time.perf_counter() - start)
