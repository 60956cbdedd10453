"""``invoke run`` without an engine: which argument is the script and what of the host it mounts, the
stdin feed, the interpreter's exit told apart from the harness's."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.builder.configurations import DEFAULT
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import error_exit
from pystats_harness.cli.run import stats_command
from pystats_harness.errors import ConfigError, InterpreterExited
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra import engine, feed
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.runner import RunRequest, container_spec
from pystats_harness.infra.script import (
    SCRIPT_DIR_IN_CONTAINER,
    ScriptRun,
    ScriptUnreadable,
    host_script,
    script_position,
)
from tests.support.invoke_runner import invoke_in

UID = 65534


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["hello.py", "-c", "x"], 0),
        (["-X", "pystats", "hello.py"], 2),
        (["-Xpystats", "-u", "hello.py", "--flag"], 2),
        (["-bb", "-W", "error", "hello.py"], 3),
        (["-uWerror", "hello.py"], 1),
        (["--check-hash-based-pycs", "never", "hello.py"], 2),
        (["-I", "--", "-odd.py"], 2),
        (["-", "arg"], 0),
        (["-c", "print(1)", "hello.py"], None),
        (["-Sc", "print(1)"], None),
        (["-m", "json.tool", "hello.py"], None),
        (["-mjson.tool"], None),
        (["-X", "pystats"], None),
        ([], None),
    ],
    ids=[
        "first",
        "after -X value",
        "after attached -X",
        "after -W value",
        "attached -W",
        "long option value",
        "after --",
        "stdin",
        "-c",
        "grouped -c",
        "-m",
        "attached -m",
        "no script",
        "nothing",
    ],
)
def test_the_script_is_the_first_argument_that_is_no_option(args: list[str], expected: int | None) -> None:
    assert script_position(args) == expected


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A host script beside a data file, readable by the run's user."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "hello.py").write_text("print(open('data.txt').read())\n")
    (folder / "data.txt").write_text("sibling\n")
    for path in (tmp_path, folder):
        path.chmod(0o755)
    return folder


def test_a_host_script_runs_from_its_mounted_directory(project: Path) -> None:
    run = host_script(["-X", "pystats", "project/hello.py", "data.txt", "-v"], project.parent, uid=UID)
    assert run.args == ("-X", "pystats", f"{SCRIPT_DIR_IN_CONTAINER}/hello.py", "data.txt", "-v")
    assert run.workdir == SCRIPT_DIR_IN_CONTAINER
    assert [(m.source, m.target, m.read_only) for m in run.mounts] == [(str(project), SCRIPT_DIR_IN_CONTAINER, True)]
    assert host_script([str(project / "hello.py")], Path("/"), uid=UID) == ScriptRun(
        (f"{SCRIPT_DIR_IN_CONTAINER}/hello.py",), run.mounts, SCRIPT_DIR_IN_CONTAINER
    )


@pytest.mark.parametrize(
    "args",
    [["-c", "import sys"], ["-m", "json.tool", "hello.py"], ["-"], ["/src/Tools/scripts/summarize_stats.py", "x"]],
    ids=["-c", "-m", "stdin", "a path in the container"],
)
def test_code_modules_stdin_and_container_paths_pass_through(args: list[str], project: Path) -> None:
    assert host_script(args, project, uid=UID) == ScriptRun(tuple(args))


def test_a_relative_script_missing_here_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^nothere.py: no such file on this host \(.*/nothere.py\)"):
        host_script(["nothere.py"], tmp_path, uid=UID)


def test_a_script_the_run_user_cannot_read_is_refused_with_the_fix(project: Path) -> None:
    (project / "hello.py").chmod(0o600)
    with pytest.raises(ScriptUnreadable, match=r"^hello.py: .* cannot read it; `chmod o\+r .*hello.py`") as unreadable:
        host_script(["hello.py"], project, uid=UID)
    assert unreadable.value.exit_code == ExitCode.SCRIPT_UNREADABLE != ExitCode.CONFIG_ERROR
    assert unreadable.value.path == (project / "hello.py").resolve()
    (project / "hello.py").chmod(0o644)
    project.chmod(0o700)
    with pytest.raises(ScriptUnreadable, match=r"cannot enter its directory; `chmod o\+x .*project`"):
        host_script(["hello.py"], project, uid=UID)
    assert host_script(["hello.py"], project, uid=os.stat(project).st_uid).mounts  # its owner can


def test_a_run_with_stdin_asks_the_engine_to_keep_it_open_and_nothing_else(tmp_path: Path) -> None:
    plain = container_spec(CacheEntry(tmp_path), RunRequest(("-",)), tmp_path / "run", "img", memory="1g", pids=8)
    assert plain.stdin is False and engine.create_options(plain)["stdin_open"] is False
    read, write = os.pipe()
    with os.fdopen(read, "rb") as stream:
        request = RunRequest(("-",), stdin=stream)
        spec = container_spec(CacheEntry(tmp_path), request, tmp_path / "run", "img", memory="1g", pids=8)
    os.close(write)
    assert spec.stdin is True and engine.create_options(spec)["stdin_open"] is True
    fed, unfed = engine.create_options(spec), engine.create_options(plain)
    assert {k: v for k, v in fed.items() if k != "stdin_open"} == {k: v for k, v in unfed.items() if k != "stdin_open"}


def test_the_feed_copies_everything_then_ends_the_input() -> None:
    read, write = os.pipe()
    sink, far = socket.socketpair()
    data = os.urandom(300_000)  # more than a pipe and a socket buffer hold
    with os.fdopen(read, "rb") as source, far:
        thread = feed.start_feeding(source, sink)
        with os.fdopen(write, "wb") as writer:
            writer.write(data)
        received = b"".join(iter(lambda: far.recv(1 << 16), b""))  # b"": the write side was shut
        thread.join(timeout=10)
    assert received == data and not thread.is_alive()
    feed.close(sink)


def test_the_feed_ends_quietly_when_the_program_is_gone(tmp_path: Path) -> None:
    sink, far = socket.socketpair()
    far.close()
    (tmp_path / "in").write_bytes(b"x" * 100_000)
    with (tmp_path / "in").open("rb") as source:
        assert feed.copy_then_close(source, sink) < 100_000
    feed.close(sink)


@pytest.mark.parametrize(
    ("status", "line"),
    [
        (3, "error: interpreter exited 3; its output is kept in /runs/x"),
        (139, "error: interpreter exited 139 (as a process killed by SIGSEGV does); its output is kept in /runs/x"),
        (255, "error: interpreter exited 255; its output is kept in /runs/x"),
    ],
)
def test_the_interpreters_exit_is_its_own_code(status: int, line: str) -> None:
    assert error_exit(InterpreterExited(status, Path("/runs/x"))) == (line, ExitCode.INTERPRETER_EXITED)
    assert ExitCode.INTERPRETER_EXITED not in (ExitCode.REVISION_NOT_FOUND, ExitCode.CONFIG_ERROR, status)


def test_a_missing_relative_script_is_exit_2_before_any_lookup(tmp_path: Path) -> None:
    out = invoke_in(tmp_path, "run", "--", "-X", "pystats", "no_such_script.py", DOCKER_HOST="unix:///nonexistent/x")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert lines[0].startswith("error: no_such_script.py: no such file on this host")


@pytest.mark.parametrize(
    ("rev", "patches", "command"),
    [
        ("v3.13.5", "auto", "invoke stats /runs/r/py_stats --rev v3.13.5"),
        ("main", "none", "invoke stats /runs/r/py_stats --rev main --patches none"),
        ("v3.12.0", "a,b", "invoke stats /runs/r/py_stats --rev v3.12.0 --patches a,b"),
    ],
)
def test_the_stats_command_names_the_revision_as_given(rev: str, patches: str, command: str) -> None:
    recipe = Recipe(CommitInfo(rev, "0" * 40, "2026-01-01T00:00:00+00:00", "s"), patches, DEFAULT)
    assert stats_command(Path("/runs/r/py_stats"), recipe) == command
    assert stats_command(Path("/my runs/py_stats"), recipe).startswith("invoke stats '/my runs/py_stats' --rev")
