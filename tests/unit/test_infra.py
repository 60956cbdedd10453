"""The infrastructure without an engine: run containers' specs, commands, atomic files, the context,
and how the task layer turns an error into one line and an exit code."""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import pytest
import requests.exceptions
import urllib3.exceptions

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.cli.common import error_exit, number
from pystats_harness.config import load_settings
from pystats_harness.errors import (
    BuildFailed,
    ConfigError,
    EngineUnavailable,
    Interrupted,
    MirrorError,
    PatchError,
    RunFailed,
)
from pystats_harness.infra import engine, engine_faults, proc
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import read_json_cached, sha256_file, write_json_atomic, write_text_atomic
from pystats_harness.infra.runner import (
    PREFIX_IN_CONTAINER,
    PYTHON_IN_CONTAINER,
    RUN_UID,
    RUN_USER,
    SOURCE_IN_CONTAINER,
    STATS_DIR_IN_CONTAINER,
    RunRequest,
    container_spec,
    limits_reached,
    make_stats_dir,
)
from pystats_harness.run_limits import Limit, LimitReached, Resource


def test_a_run_sees_the_build_read_only_its_own_stats_dir_and_no_network(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    extra = engine.Mount("/host/suite", "/suite", read_only=True)
    request = RunRequest(("-c", "pass"), env={"PYTHONSTATS": "1"}, mounts=(extra,), label="t")
    spec = container_spec(CacheEntry(tmp_path), request, tmp_path / "run", "img", memory="2g", pids=512)
    mounts = {m.target: m for m in spec.mounts}
    assert mounts[PREFIX_IN_CONTAINER].read_only and mounts[PREFIX_IN_CONTAINER].source == str(tmp_path / "install")
    assert mounts[SOURCE_IN_CONTAINER].read_only
    assert not mounts[STATS_DIR_IN_CONTAINER].read_only
    assert mounts[STATS_DIR_IN_CONTAINER].source == str(tmp_path / "run" / "py_stats")
    assert mounts["/suite"] == extra
    assert spec.network is False and spec.image == "img"
    assert list(spec.command) == [PYTHON_IN_CONTAINER, "-c", "pass"]
    assert spec.env == {"PYTHONHASHSEED": "0", "PYTHONSTATS": "1"}


def test_a_run_is_confined(tmp_path: Path) -> None:
    spec = container_spec(CacheEntry(tmp_path), RunRequest(("-V",)), tmp_path / "run", "img", memory="1g", pids=64)
    assert spec.user == RUN_USER == "65534:65534"  # nobody, never root
    assert spec.cap_drop == ("ALL",) and spec.no_new_privileges
    assert spec.read_only_root and spec.tmpfs == ("/tmp",)
    assert spec.memory == "1g" and spec.pids == 64
    options = engine.create_options(spec)  # what the engine is asked for
    assert options["user"] == "65534:65534" and options["read_only"] is True
    assert options["cap_drop"] == ["ALL"] and options["security_opt"] == ["no-new-privileges"]
    assert options["tmpfs"] == {"/tmp": engine.TMPFS_OPTIONS} and "exec" in engine.TMPFS_OPTIONS.split(",")
    assert options["mem_limit"] == options["memswap_limit"] == "1g"  # no swap on top
    assert options["pids_limit"] == 64 and options["network_mode"] == "none"
    first = options["mounts"][0]
    assert (first["Target"], first["ReadOnly"], first["Type"]) == (PREFIX_IN_CONTAINER, True, "bind")


def test_an_unconfined_spec_asks_the_engine_for_nothing() -> None:
    options = engine.create_options(engine.ContainerSpec(image="img", command=["true"]))
    for key in ("user", "tmpfs", "cap_drop", "security_opt", "mem_limit", "memswap_limit", "pids_limit"):
        assert options[key] is None, key
    assert options["read_only"] is False


def test_a_run_without_stats_dir_has_none(tmp_path: Path) -> None:
    spec = container_spec(
        CacheEntry(tmp_path), RunRequest(("-V",), stats_dir=False), tmp_path / "run", "img", memory="2g", pids=512
    )
    assert STATS_DIR_IN_CONTAINER not in {m.target for m in spec.mounts}
    assert SOURCE_IN_CONTAINER not in {m.target for m in spec.mounts}  # no src/ in this entry
    # /tmp is an empty tmpfs: the image's /tmp/py_stats is hidden without removing it first
    assert spec.tmpfs == ("/tmp",) and list(spec.command) == [PYTHON_IN_CONTAINER, "-V"]


def test_the_stats_dir_is_writable_by_the_run_user(tmp_path: Path) -> None:
    path = make_stats_dir(tmp_path)
    info = path.stat()
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (RUN_UID, RUN_UID)
    else:
        assert info.st_mode & 0o777 == 0o777


FORK_BOMB_STDERR = """Traceback (most recent call last):
  File "<string>", line 2, in <module>
    while True: os.fork()
                ~~~~~~~^^
BlockingIOError: [Errno 11] Resource temporarily unavailable
"""


@pytest.mark.parametrize(
    "result, expected",
    [
        (engine.ContainerResult(137, "", "", oom_killed=True), (Resource.MEMORY,)),
        (engine.ContainerResult(1, "", FORK_BOMB_STDERR), (Resource.PROCESSES,)),
        (engine.ContainerResult(137, "", FORK_BOMB_STDERR, oom_killed=True), (Resource.PROCESSES, Resource.MEMORY)),
        (engine.ContainerResult(1, "", "RuntimeError: can't start new thread\n"), (Resource.PROCESSES,)),
        (engine.ContainerResult(2, "", "sh: 1: Cannot fork\n"), (Resource.PROCESSES,)),
        (engine.ContainerResult(0, "", FORK_BOMB_STDERR), ()),  # refused a fork, coped, succeeded
        (engine.ContainerResult(1, "", "ValueError: nope\n"), ()),
        (engine.ContainerResult(0, "ok", ""), ()),
    ],
    ids=[
        "oom-killed",
        "fork refused",
        "forks cost memory",
        "thread refused",
        "shell fork refused",
        "coped",
        "other failure",
        "fine",
    ],
)
def test_which_limits_stopped_a_run(result: engine.ContainerResult, expected: tuple[Resource, ...]) -> None:
    assert limits_reached(result) == expected


def test_a_wait_that_reached_its_timeout_is_not_the_engine_gone() -> None:
    """requests reports the wait's own timeout as ConnectionError(ReadTimeoutError) once the answer's head
    came: that is a run that took too long (RunFailed, exit 14), not the engine gone (exit 5)."""
    late_body = requests.exceptions.ConnectionError(urllib3.exceptions.ReadTimeoutError(None, "/wait", "timed out"))
    assert engine_faults.timed_out(late_body) and engine_faults.timed_out(requests.exceptions.ReadTimeout())
    assert not engine_faults.timed_out(requests.exceptions.ConnectionError(ConnectionRefusedError()))
    assert not engine_faults.timed_out(requests.exceptions.ConnectionError())


def test_a_reached_limit_is_one_line_with_its_exit_code(tmp_path: Path) -> None:
    memory = Limit(Resource.MEMORY, "2g", "run_memory")
    exc = LimitReached(label="run", limits=[memory], run_dir=tmp_path)
    assert isinstance(exc, RunFailed) and exc.limits == (memory,) and exc.resources == (Resource.MEMORY,)
    line, code = error_exit(exc) or ("", 0)
    assert code == 16 and line == (
        f"error: memory limit (2g) reached by run 'run': the kernel OOM-killed it; output kept in {tmp_path}; "
        "raise pystats.run_memory if the workload really needs more"
    )
    both = LimitReached(label="x", limits=[Limit(Resource.PROCESSES, "256", "run_pids"), memory], run_dir=tmp_path)
    assert str(both).startswith(
        "process limit (256) and memory limit (2g) reached by run 'x': it could not start another process or "
        "thread and the kernel OOM-killed it;"
    )
    assert str(both).endswith("raise pystats.run_pids and pystats.run_memory if the workload really needs more")


def test_a_build_that_reached_its_memory_limit_says_so() -> None:
    failed = BuildFailed(
        phase="make", commit="abc", status=2, log_tail=["x"], log_path=Path("/l.log"), memory_limit="8g"
    )
    assert failed.memory_limit == "8g"
    assert str(failed) == (
        "make failed for abc (exit 2); memory limit (8g) reached: raise pystats.build_memory; "
        "last 1 log lines above; full log: /l.log"
    )


def test_a_failed_command_raises_the_callers_error_with_its_data(tmp_path: Path) -> None:
    assert proc.run(["sh", "-c", "echo out"], error=MirrorError, what="echo") == "out\n"
    with pytest.raises(PatchError) as info:
        proc.run(["sh", "-c", "echo first >&2; echo last words >&2; exit 3"], error=PatchError, what="git apply x")
    exc = info.value
    assert exc.command is not None and exc.command.status == 3 and exc.command.argv[0] == "sh"
    assert "last words" in exc.command.stderr_tail
    assert str(exc).startswith("git apply x failed (`sh -c") and str(exc).endswith("exited 3): last words")
    with pytest.raises(MirrorError, match="cannot run no-such-program-xyz"):
        proc.run(["no-such-program-xyz"], error=MirrorError, what="x")


def test_reap_dead_removes_only_leftovers_of_dead_processes(tmp_path: Path) -> None:
    dead = tmp_path / "wt-abc-999999999-1234"
    alive = tmp_path / f"wt-abc-{os.getpid()}-1234"
    other = tmp_path / "wt-not-ours"
    for d in (dead, alive, other):
        d.mkdir()
    assert proc.reap_dead(tmp_path, "wt-") == [dead]
    assert not dead.exists() and alive.exists() and other.exists()


def test_atomic_writes_leave_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    write_json_atomic(target, {"b": 1, "a": [1.5]}, sort_keys=True)
    assert target.read_text() == '{\n "a": [\n  1.5\n ],\n "b": 1\n}\n'
    with pytest.raises(ValueError):
        write_json_atomic(target, {"x": math.nan})  # NaN is not JSON; the old file stays
    assert json.loads(target.read_text()) == {"a": [1.5], "b": 1}
    write_text_atomic(tmp_path / "t.md", "hello\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "t.md"]


def test_sha256_and_json_read_once_per_version(tmp_path: Path) -> None:
    f = tmp_path / "f.json"
    f.write_text('{"v": 1}')
    assert sha256_file(f) == hashlib.sha256(b'{"v": 1}').hexdigest()
    assert read_json_cached(f) == {"v": 1} and read_json_cached(f) is read_json_cached(f)
    f.write_text('{"v": 2}')
    os.utime(f, ns=(1, 10**18))
    assert read_json_cached(f) == {"v": 2}


def test_context_connects_only_when_the_engine_is_needed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    ctx = Context(load_settings({"cache_dir": str(tmp_path)}))  # no engine needed to make it
    faster = ctx.with_settings(ctx.settings.with_overrides(make_jobs=7))
    assert faster.settings.make_jobs == 7 and faster.reporter is ctx.reporter
    with pytest.raises(EngineUnavailable, match="dockerd"):
        _ = ctx.docker


def test_errors_become_one_line_and_their_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert error_exit(ConfigError("bad --metric")) == ("error: bad --metric", 2)
    assert error_exit(KeyboardInterrupt()) == ("error: interrupted", Interrupted.exit_code)
    assert error_exit(RuntimeError("a bug")) is None  # not ours: the traceback is shown
    failed = BuildFailed(
        phase="make", commit="abc", status=2, log_tail=["cc -c x.c", "x.c:1: error: boom"], log_path=Path("/l.log")
    )
    line, code = error_exit(failed) or ("", 0)
    assert code == 7 and line == "error: make failed for abc (exit 2); last 2 log lines above; full log: /l.log"
    assert "x.c:1: error: boom" in capsys.readouterr().err  # the tail is shown above the line
    assert failed.first_error() == "x.c:1: error: boom"


@pytest.mark.parametrize(
    "value, kind, expected", [(None, float, None), ("", int, None), ("2.5", float, 2.5), ("3", int, 3)]
)
def test_number_options(value: str | None, kind: type, expected: float | None) -> None:
    assert number("loops", value, kind) == expected


@pytest.mark.parametrize(
    "value, kind, message",
    [("x", float, "is not a number"), ("2.5", int, "is not an integer"), ("inf", float, "finite")],
)
def test_bad_number_options(value: str, kind: type, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        number("threshold", value, kind)


def test_an_output_directory_that_cannot_be_written_is_refused_before_any_work(tmp_path: Path) -> None:
    from pystats_harness.errors import OutputNotWritable
    from pystats_harness.infra.fs import check_output_dir

    assert check_output_dir(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert list(tmp_path.iterdir()) == []  # the check leaves nothing behind
    (tmp_path / "file").write_text("x")
    for bad in (Path("/proc/x"), tmp_path / "file" / "out", tmp_path / "file"):
        with pytest.raises(OutputNotWritable) as info:
            check_output_dir(bad)
        assert info.value.exit_code == 32 and "nothing was run or written" in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
