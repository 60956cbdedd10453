"""`invoke build` / `invoke run` end to end on a real engine with a real CPython 3.13.5 build."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from pystats_harness.builder.cache import lookup
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra import engine
from pystats_harness.infra.proc import pid_alive
from tests.support.builds import cache_key
from tests.support.disk import disk_mb
from tests.support.invoke_runner import INVOKE, ROOT, Harness
from tests.support.repo import commit_files
from tests.support.streamed import Streamed


@pytest.fixture(scope="module")
def built_3135(harness: Harness) -> dict:
    first = harness.invoke("build", "--rev", "v3.13.5")
    assert first.returncode == 0, first.stdout + first.stderr
    line = next(line for line in first.stdout.splitlines() if line.startswith("build "))
    path = Path(line.split()[1])
    return {"path": path, "first": first, "manifest": json.loads((path / "manifest.json").read_text())}


def test_build_from_imported_release_records_manifest(built_3135: dict) -> None:
    m = built_3135["manifest"]
    # the revision asked by whoever built this entry first (bisect asks by sha)
    assert m["revision"] in ("v3.13.5", m["sha"]) and len(m["sha"]) == 40
    assert m["python"]["version"] == "3.13.5" and m["python"]["py_stats"] == 1
    assert m["patches"] == []  # 3.13.5 already has the fix
    assert "--enable-pystats" in m["configure_flags"]
    assert m["image"]["id"].startswith("sha256:")
    assert m["compiler"].startswith("gcc")
    assert set(m["seconds"]) >= {"configure", "make", "install"}
    fp = m["fingerprint"]
    assert fp["plain"]["ok"] and fp["plain"]["observed"].startswith("exit 0; 0 file(s)")
    assert fp["xoption"]["ok"] and "1 non-zero" in fp["xoption"]["observed"]
    assert fp["on-work-off"]["ok"] and m["verification"]["ok"]
    path = built_3135["path"]
    assert (path / "COMPLETE").is_file() and (path / "build.log").stat().st_size > 0
    assert (path / "install" / "bin" / "python3").exists()
    assert (path / "src" / "Tools" / "scripts" / "summarize_stats.py").is_file()


#: A 3.13 entry without the static libpython and the optimized .pyc files is ~83 MB (it was ~247 MB).
ENTRY_MB_GOAL = 100


def test_entry_holds_only_what_runs_and_extension_builds_need(built_3135: dict) -> None:
    path = built_3135["path"]
    install = path / "install"
    assert disk_mb(path) <= ENTRY_MB_GOAL
    assert not list(install.rglob("libpython*.a")) and not list(install.rglob("python.o"))
    assert not list(install.rglob("*.opt-1.pyc")) and not list(install.rglob("*.opt-2.pyc"))
    # what runs import (the install is read-only in run containers: no pyc could be written later)
    stdlib = install / "lib" / "python3.13"
    assert (stdlib / "__pycache__" / "os.cpython-313.pyc").is_file()
    assert len(list(stdlib.rglob("*.cpython-313.pyc"))) > 500
    # what building C extensions against the interpreter needs
    assert (install / "include" / "python3.13" / "Python.h").is_file()
    assert (install / "bin" / "python3-config").exists()
    assert list(stdlib.glob("_sysconfigdata_*.py")) and list(stdlib.glob("config-3.13-*/Makefile"))


def test_second_build_is_a_cache_hit(harness: Harness, built_3135: dict) -> None:
    again = harness.invoke("build", "--rev", "v3.13.5")
    assert again.returncode == 0
    assert "cache      hit" in again.stdout
    assert str(built_3135["path"]) in again.stdout


def test_dry_run_shows_plan_and_builds_nothing(harness: Harness, built_3135: dict) -> None:
    out = harness.invoke("build", "--rev", "v3.13.5", "--dry-run", "--patches", "none")
    assert out.returncode == 0
    for field in ("revision", "cache key", "image", "configure", "cache      hit"):
        assert field in out.stdout


def _run(harness: Harness, *args: str) -> tuple[int, Path | None, str]:
    out = harness.invoke("run", "--rev", "v3.13.5", "--", *args)
    stats = [line for line in out.stderr.splitlines() if line.startswith("stats:")]
    path = Path(stats[0].split(" in ", 1)[1]) if stats and " in " in stats[0] else None
    return out.returncode, path, out.stdout


def test_run_returns_stats_only_for_runs_that_produce_them(harness: Harness, built_3135: dict) -> None:
    code, plain, _ = _run(harness, "-c", "pass")
    assert code == 0 and plain is not None and list(plain.iterdir()) == []
    code, xstats, _ = _run(harness, "-X", "pystats", "-c", "print('hi')")
    assert code == 0 and len(list(xstats.iterdir())) == 1
    code, bracket, out = _run(
        harness, "-c", "import sys; sys._stats_on(); x = sum(range(100)); sys._stats_off(); print(x)"
    )
    assert out.strip() == "4950"
    files = list(bracket.iterdir())
    assert len(files) == 1 and "execution_count" in files[0].read_text()
    assert len({plain, xstats, bracket}) == 3  # every run has its own stats dir


def test_a_tree_that_bundles_libmpdec_builds_its_own_beside_the_images(harness: Harness, built_3135: dict) -> None:
    """The builder image has trixie's libmpdec 4.0.1 (docker/from-trixie.txt, for trees that bundle none) and
    nothing else from trixie; 3.13.5 is configured --without-system-libmpdec and its _decimal is its 2.5.1."""
    image = harness.settings.image
    probe = "dpkg-query -W -f '${Package}=${Version} ' libmpdec-dev libc6"
    shown = subprocess.run(["docker", "run", "--rm", image, "sh", "-c", probe], capture_output=True, text=True)
    versions = dict(item.split("=", 1) for item in shown.stdout.split())
    assert versions["libmpdec-dev"].startswith("4.0.1") and versions["libc6"].startswith("2.36"), shown
    assert "--without-system-libmpdec" in built_3135["manifest"]["configure_flags"]
    code, _, out = _run(harness, "-c", "import _decimal; print(_decimal.__libmpdec_version__)")
    assert code == 0 and out.strip() == "2.5.1"


HOST_SCRIPT = """import sys
import helper  # a module beside the script
sys._stats_on(); total = sum(range(10)); sys._stats_off()
print(helper.GREETING, open("data.txt").read().strip(), sys.stdin.read().strip().upper(), sys.argv[1:], total)
sys.exit(3)
"""


@pytest.fixture
def host_scripts(tmp_path: Path) -> Path:
    """A script with a module and a data file beside it (the run's user, nobody, enters the directory
    and reads the files)."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    folder.chmod(0o755)
    (folder / "hello.py").write_text(HOST_SCRIPT)
    (folder / "helper.py").write_text("GREETING = 'hi'\n")
    (folder / "data.txt").write_text("sibling\n")
    return folder


def test_a_host_script_reads_its_sibling_and_stdin_and_its_exit_is_its_own(
    harness: Harness, built_3135: dict, host_scripts: Path
) -> None:
    """One run: the script's directory mounted, stdin fed, arguments kept; its sys.exit(3) is the line
    'interpreter exited 3' and exit 33 (not 3, revision not found), with the stats command for its dumps."""
    out = harness.invoke(
        "run", "--rev", "v3.13.5", "--", str(host_scripts / "hello.py"), "a b", "-c", input="piped words\n"
    )
    assert out.returncode == ExitCode.INTERPRETER_EXITED == 33, out.stdout + out.stderr
    assert out.stdout == "hi sibling PIPED WORDS ['a b', '-c'] 45\n"
    lines = out.stderr.strip().splitlines()
    assert lines[-1].startswith("error: interpreter exited 3; its output is kept in "), out.stderr
    command = next(line for line in lines if line.startswith("to summarize them: ")).split(": ", 1)[1]
    assert command.startswith("invoke stats ") and command.endswith("/py_stats --rev v3.13.5")
    summary = harness.invoke(*shlex.split(command)[1:])  # the printed command works as printed
    assert summary.returncode == 0, summary.stdout + summary.stderr


def test_a_run_waiting_for_stdin_ends_at_its_timeout(harness: Harness, built_3135: dict) -> None:
    """stdin held open and never written: the run is killed at run_timeout (exit 14), its container removed."""
    read, write = os.pipe()
    try:
        out = subprocess.run(
            [*INVOKE, "run", "--", "-c", "import sys; sys.stdin.read()"],
            cwd=ROOT,
            env=harness.env(INVOKE_PYSTATS_RUN_TIMEOUT="3"),
            stdin=read,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.close(read)
        os.close(write)
    assert out.returncode == 14, out.stdout + out.stderr
    assert "did not finish within 3" in out.stderr
    assert _leaked(engine.connect()) == {}


def test_the_programs_output_is_shown_as_it_comes(harness: Harness, built_3135: dict) -> None:
    """The program prints a line, then waits for its stdin: the line reaches invoke run's output while the
    program still waits (before, a run's output came only once it had ended)."""
    program = "import sys; print('ready', flush=True); sys.stdin.readline(); print('done')"
    proc = subprocess.Popen(
        [*INVOKE, "run", "--", "-c", program],
        cwd=ROOT,
        env=harness.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    streamed = Streamed(proc)
    streamed.wait_for("ready", deadline=120)  # fails the test if the line only comes at the end
    assert proc.stdin is not None
    proc.stdin.write("go\n")
    proc.stdin.close()
    streamed.wait_for("done", deadline=120)
    streamed.finish(timeout=120)
    output = "".join(streamed.lines)
    assert proc.returncode == 0 and output.count("ready\n") == output.count("done\n") == 1, output  # each once


def _variant_flags(tmp_path: Path, extra: str) -> str:
    f = tmp_path / "configure.toml"
    f.write_text(f'flags = ["--enable-option-checking=fatal", "--without-ensurepip", "{extra}"]\n')
    return str(f)


def _assert_nothing_left(harness: Harness, key: str) -> None:
    s = harness.settings
    assert lookup(s.builds_dir, key) is None
    assert not (s.builds_dir / key).exists()
    assert not list(s.builds_dir.glob(f".staging-{key}-*"))
    assert not list(s.worktrees_dir.glob("wt-*")) if s.worktrees_dir.exists() else True
    assert _leaked(engine.connect()) == {}


def _make_absent(harness: Harness, flags: str) -> None:
    """The test needs a cache miss: remove the entry of v3.13.5 with ``flags`` if an earlier run (one whose
    interrupt did not land, say) left it, so the suite passes when run twice."""
    dry = harness.invoke("build", "--rev", "v3.13.5", "--dry-run", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    key = cache_key(dry.stdout.splitlines())
    if (harness.settings.builds_dir / key).exists():
        shutil.rmtree(harness.settings.builds_dir / key)
    assert (
        "cache      miss"
        in harness.invoke("build", "--rev", "v3.13.5", "--dry-run", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags).stdout
    )


def _start_and_wait_for(harness: Harness, flags: str, marker: str) -> tuple[Streamed, str]:
    """Start a build of v3.13.5 with ``flags``, wait until it prints the phase line ``marker``."""
    build = Streamed(harness.popen("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags))
    build.wait_for(marker)
    key = cache_key(build.lines)
    return build, key


def _owners(client: engine.Client) -> dict[str, str]:
    """Every harness container: name -> the pid label of the process that made it."""
    return {
        c.name: c.labels.get(f"{engine.LABEL}.pid", "")
        for c in client.containers.list(all=True, filters={"label": engine.LABEL}, ignore_removed=True)
    }


def _leaked(client: engine.Client) -> dict[str, str]:
    """Harness containers whose process is gone: what an ended invocation left behind (the containers of
    a run still going on the same engine, another test's or a bench's, are not this test's)."""
    return {name: owner for name, owner in _owners(client).items() if not (owner.isdigit() and pid_alive(int(owner)))}


def test_ctrl_c_mid_build_leaves_nothing(harness: Harness, built_3135: dict, tmp_path: Path) -> None:
    # configure is done and make is compiling in the build container: the middle of the build
    flags = _variant_flags(tmp_path, "--with-lto=no")
    _make_absent(harness, flags)
    build, key = _start_and_wait_for(harness, flags, "» make")
    build.proc.send_signal(signal.SIGINT)
    rest = build.finish(timeout=120)
    assert build.proc.returncode == 130, rest
    assert "interrupted" in rest
    _assert_nothing_left(harness, key)


def test_kill_mid_build_leaves_no_marker(harness: Harness, built_3135: dict, tmp_path: Path) -> None:
    flags = _variant_flags(tmp_path, "--with-computed-gotos")
    _make_absent(harness, flags)
    killed, key = _start_and_wait_for(harness, flags, "» make")
    killed.proc.kill()
    killed.finish(timeout=60)
    pid = killed.proc.pid
    s = harness.settings
    assert lookup(s.builds_dir, key) is None and not (s.builds_dir / key).exists()
    # kill -9 runs no cleanup: its staging directory and worktree are still there...
    assert len(list(s.builds_dir.glob(f".staging-{key}-{pid}-*"))) == 1
    assert len(list(s.worktrees_dir.glob(f"wt-*-{pid}-*"))) == 1
    # its build container outlives it (the engine runs it)...
    client = engine.connect()
    orphans = {name for name, owner in _owners(client).items() if owner == str(pid)}
    assert len(orphans) == 1 and next(iter(orphans)).startswith("pystats-harness-build-"), orphans
    # ...until the next invocation that talks to the engine (here: planning the same build) reaps the
    # containers whose process is gone; it does not mistake the leftovers for a build
    dry = harness.invoke(
        "build", "--rev", "v3.13.5", "--dry-run", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=str(tmp_path / "configure.toml")
    )
    assert "cache      miss" in dry.stdout
    after = _owners(client)
    assert not orphans & set(after) and str(pid) not in after.values(), after
    # ...and the next build of the same key reaps the killed one's worktree and staging directory
    nxt, key2 = _start_and_wait_for(harness, str(tmp_path / "configure.toml"), "» configure")
    nxt.proc.send_signal(signal.SIGINT)
    rest = nxt.finish(timeout=120)
    assert nxt.proc.returncode == 130, rest
    assert key2 == key
    _assert_nothing_left(harness, key)


def test_configure_failure_shows_log_tail_and_path(harness: Harness, built_3135: dict) -> None:
    mirror = harness.settings.mirror_dir
    sha = commit_files(
        mirror,
        "v3.13.5",
        {"configure": ("100755", "#!/bin/sh\necho 'configure: error: planted failure' >&2\nexit 1\n")},
        "planted: configure fails",
        branch="test/broken-configure",
    )
    out = harness.invoke("build", "--rev", sha)
    assert out.returncode == 7, out.stdout + out.stderr
    assert "planted failure" in out.stderr
    err_line = [line for line in out.stderr.splitlines() if line.startswith("error:")][-1]
    assert "configure failed" in err_line and "full log:" in err_line
    log = Path(err_line.split("full log: ")[1].strip())
    assert log.is_file() and "planted failure" in log.read_text()
    _assert_nothing_left(
        harness, next(line.split()[-1] for line in out.stdout.splitlines() if line.startswith("cache key"))
    )
