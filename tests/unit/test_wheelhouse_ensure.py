"""The benchmark wheelhouse made when first needed: complete / missing / incomplete, idempotence, one
maker at a time (a real flock, two real processes), nothing taken for complete before the marker, and
the one-line error (exit 17) naming the command to run by hand. The maker is a fake passed in: it
writes an index the way the fetch does, so nothing here needs the package index or Docker."""

from __future__ import annotations

import io
import json
import multiprocessing
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from pystats_harness.builder.locks import Owner
from pystats_harness.config import load_settings
from pystats_harness.console import Reporter
from pystats_harness.infra.context import Context
from pystats_harness.pyperformance import wheelhouse, wheelhouse_fetch
from pystats_harness.pyperformance.errors import WheelMissing
from pystats_harness.pyperformance.wheelhouse_ensure import (
    MARKER,
    Progress,
    State,
    ensure,
    ensure_benchmark_wheelhouse,
    marked_versions,
    remake,
    state,
)

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60.0  # seconds a test waits for the other process before it fails (never reached when it works)


class FakeMaker:
    """Writes index.json as the fetch does (one lock per benchmark, or none for ``unresolved``) and
    records every call; ``interrupt`` stops it after the index is written, as Ctrl-C would."""

    def __init__(self, *, unresolved: str | None = None, interrupt: bool = False) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.unresolved = unresolved
        self.interrupt = interrupt

    def __call__(self, wheelhouse_dir: Path, versions: Sequence[str], log: Any, tick: Any) -> Mapping[str, Any]:
        self.calls.append(tuple(versions))
        root = wheelhouse_dir / "benchmarks"
        root.mkdir(parents=True, exist_ok=True)
        index: dict[str, Any] = {"schema": wheelhouse_fetch.SCHEMA, "versions": {}}
        for version in versions:
            log(f"Python {version}: 1 of 1 pins to fetch")
            tick(f"{version} [1/1] tomli==2.0.1: pure")
            lock = None if version == self.unresolved else f"locks/{version}/bm_tomli_loads.txt"
            note = "uv: no route to the package index" if lock is None else None
            index["versions"][version] = {"benchmarks": {"bm_tomli_loads": {"lock": lock, "note": note}}}
        (root / "index.json").write_text(json.dumps(index))
        if self.interrupt:
            raise KeyboardInterrupt
        return index


def quiet() -> tuple[Progress, list[str]]:
    said: list[str] = []
    return Progress(log=said.append, tick=said.append, wait=lambda owner: said.append(f"wait {owner}")), said


def test_missing_then_made_then_complete_and_a_second_call_does_nothing(tmp_path: Path) -> None:
    maker, (progress, said) = FakeMaker(), quiet()
    assert state(tmp_path) is State.MISSING
    (tmp_path / "benchmarks").mkdir()
    assert state(tmp_path) is State.MISSING  # an empty directory is nothing made
    assert ensure(tmp_path, progress, make=maker) is State.MISSING
    assert maker.calls == [("3.11", "3.12", "3.13")]
    assert state(tmp_path) is State.COMPLETE and marked_versions(tmp_path) == {"3.11", "3.12", "3.13"}
    assert "is missing: fetching pyperformance 1.14.0" in said[0] and "3.13 [1/1] tomli==2.0.1: pure" in said
    said.clear()
    assert ensure(tmp_path, progress, make=maker) is State.COMPLETE
    assert maker.calls == [("3.11", "3.12", "3.13")] and said == []  # idempotent: nothing made, nothing said


def test_an_interrupted_make_is_incomplete_and_the_next_call_makes_it_again(tmp_path: Path) -> None:
    progress, _ = quiet()
    with pytest.raises(KeyboardInterrupt):
        ensure(tmp_path, progress, make=FakeMaker(interrupt=True))
    assert (tmp_path / "benchmarks" / "index.json").is_file()  # the index is there, but no marker
    assert not (tmp_path / "benchmarks" / MARKER).exists() and state(tmp_path) is State.INCOMPLETE
    maker = FakeMaker()
    assert ensure(tmp_path, progress, make=maker) is State.INCOMPLETE
    assert maker.calls == [("3.11", "3.12", "3.13")] and state(tmp_path) is State.COMPLETE


def test_a_wheelhouse_made_before_the_marker_existed_is_incomplete(tmp_path: Path) -> None:
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "index.json").write_text("{}")
    assert state(tmp_path) is State.INCOMPLETE


def test_the_marker_must_name_this_pyperformance_and_every_version_asked(tmp_path: Path) -> None:
    progress, _ = quiet()
    ensure(tmp_path, progress, versions=["3.13"], make=FakeMaker())
    assert state(tmp_path, ["3.13"]) is State.COMPLETE and state(tmp_path) is State.INCOMPLETE
    maker = FakeMaker()
    ensure(tmp_path, progress, versions=["3.11"], make=maker)
    assert marked_versions(tmp_path) == {"3.11", "3.13"}  # what was marked before is kept
    marker = tmp_path / "benchmarks" / MARKER
    marker.write_text(marker.read_text().replace(wheelhouse_fetch.PYPERFORMANCE_VERSION, "0.0.1"))
    assert marked_versions(tmp_path) == frozenset() and state(tmp_path, ["3.13"]) is State.INCOMPLETE
    marker.write_text("{not json")
    assert state(tmp_path, ["3.13"]) is State.INCOMPLETE


def test_no_route_to_the_index_is_one_line_exit_17_naming_the_command_and_nothing_is_marked(tmp_path: Path) -> None:
    def offline(wheelhouse_dir: Path, versions: Sequence[str], log: Any, tick: Any) -> Mapping[str, Any]:
        raise RuntimeError("ERROR: Could not find a version that satisfies the requirement pyperformance==1.14.0")

    progress, _ = quiet()
    with pytest.raises(WheelMissing) as caught:
        ensure(tmp_path, progress, make=offline)
    message = str(caught.value)
    assert caught.value.exit_code == 17 and "\n" not in message
    assert "satisfies the requirement pyperformance==1.14.0" in message
    assert f"`python3 scripts/make_benchmark_wheelhouse.py {tmp_path}`" in message
    assert state(tmp_path) is State.MISSING


def test_a_benchmark_whose_requirements_did_not_resolve_leaves_its_version_unmarked(tmp_path: Path) -> None:
    progress, _ = quiet()
    with pytest.raises(WheelMissing, match=r"bm_tomli_loads on Python 3\.12 did not resolve: uv: no route"):
        ensure(tmp_path, progress, make=FakeMaker(unresolved="3.12"))
    assert marked_versions(tmp_path) == {"3.11", "3.13"} and state(tmp_path) is State.INCOMPLETE
    maker = FakeMaker()
    assert ensure(tmp_path, progress, make=maker) is State.INCOMPLETE and state(tmp_path) is State.COMPLETE


def test_remake_runs_the_maker_even_when_complete(tmp_path: Path) -> None:
    progress, _ = quiet()
    ensure(tmp_path, progress, make=FakeMaker())
    maker = FakeMaker()
    assert remake(tmp_path, progress, versions=["3.13"], make=maker) is State.COMPLETE
    assert maker.calls == [("3.13",)] and state(tmp_path) is State.COMPLETE


def _slow_maker(wheelhouse_dir: Path, versions: Sequence[str], log: Any, tick: Any) -> Mapping[str, Any]:
    """The first process's maker: says it started, then holds the lock until the test lets it go."""
    (wheelhouse_dir / "started").write_text("")
    _wait_for(wheelhouse_dir / "go")
    return FakeMaker()(wheelhouse_dir, versions, log, tick)


def _wait_for(path: Path) -> None:
    end = time.monotonic() + DEADLINE
    while not path.exists():
        if time.monotonic() > end:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.01)


def _first(wheelhouse_dir: str) -> None:
    ensure(Path(wheelhouse_dir), quiet()[0], make=_slow_maker)


def test_two_processes_at_once_make_it_once_and_the_second_says_whose_make_it_waits_for(tmp_path: Path) -> None:
    fork = multiprocessing.get_context("fork")
    first = fork.Process(target=_first, args=(str(tmp_path),))
    first.start()
    _wait_for(tmp_path / "started")
    waited: list[Owner | None] = []

    def wait(owner: Owner | None) -> None:  # called while the first process holds the lock
        waited.append(owner)
        assert state(tmp_path) is not State.COMPLETE  # the half-made wheelhouse is not taken for complete
        (tmp_path / "go").write_text("")

    second = FakeMaker()
    found = ensure(tmp_path, Progress(log=print, tick=print, wait=wait), make=second)
    first.join(DEADLINE)
    assert first.exitcode == 0
    assert found is State.COMPLETE and second.calls == []  # made once, by the first process
    (owner,) = waited
    assert owner is not None and owner.pid == first.pid and owner.what == "making the benchmark wheelhouse"


def test_the_context_form_reports_progress_in_a_log_and_then_says_nothing(tmp_path: Path) -> None:
    out = io.StringIO()
    reporter = Reporter(Console(file=out, width=200))  # not a terminal, not verbose: CI's log
    ctx = Context(load_settings({"wheelhouse_dir": str(tmp_path), "cache_dir": str(tmp_path / "cache")}), reporter)
    maker = FakeMaker()
    ensure_benchmark_wheelhouse(ctx, make=maker)
    text = out.getvalue()
    assert "» benchmark wheelhouse" in text and "Python 3.12: 1 of 1 pins to fetch" in text
    assert "3.12 [1/1] tomli==2.0.1: pure" in text and "✓ benchmark wheelhouse" in text
    ensure_benchmark_wheelhouse(ctx, make=maker)
    assert len(maker.calls) == 1 and out.getvalue() == text
    # a build of another X.Y (3.14 is not a default one): its part is made once, then nothing
    ensure_benchmark_wheelhouse(ctx, make=maker, python="3.14")
    ensure_benchmark_wheelhouse(ctx, make=maker, python="3.14")
    ensure_benchmark_wheelhouse(ctx, make=maker, python="3.13")
    assert maker.calls[1:] == [(*wheelhouse_fetch.DEFAULT_VERSIONS, "3.14")]


def test_the_fetch_and_the_reader_agree_on_the_schema_and_the_script_runs() -> None:
    assert wheelhouse_fetch.SCHEMA == wheelhouse.SCHEMA
    script = ROOT / "scripts" / "make_benchmark_wheelhouse.py"
    result = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "--versions" in result.stdout
