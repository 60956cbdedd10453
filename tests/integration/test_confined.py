"""Confined runs on a real engine with a real CPython 3.13.5 build: a fork bomb and an allocation
bomb end with their limit named, for that run only; a run is nobody, without network or
capabilities, and writes nothing but /tmp and its own stats dir; no container is left behind.

Containers are checked by the owner label of the process that made them (other engineers' tests
may run harness containers on the same engine at the same time)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.infra import engine
from pystats_harness.infra.runner import RunRequest, run_python
from pystats_harness.run_limits import Limit, LimitReached, Resource
from tests.support.builds import built
from tests.support.invoke_runner import Harness

FORK_BOMB = "import os\nwhile True: os.fork()"
ALLOCATION_BOMB = "chunks = []\nwhile True: chunks.append(b'x' * 10**7)"
PROBE = """
import json, os, sys
def attempt(path):
    try:
        open(path, "w").write("x")
        return "written"
    except OSError as exc:
        return exc.strerror
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
sys._stats_on(); sum(range(100)); sys._stats_off()
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "interfaces": sorted(os.listdir("/sys/class/net")),
    "cap_eff": status["CapEff"].strip(), "no_new_privs": status["NoNewPrivs"].strip(),
    "tmp": attempt("/tmp/x"), "etc": attempt("/etc/x"), "root": attempt("/x"), "install": attempt("/opt/pystats/x"),
    "stats_dir_files": os.listdir("/tmp/py_stats"),
}))
"""


@pytest.fixture(scope="module")
def entry(harness: Harness) -> CacheEntry:
    return built(harness, "v3.13.5")


def _owned_by(pid: int) -> list[str]:
    """Harness containers made by process ``pid`` that still exist."""
    found = engine.connect().containers.list(
        all=True, filters={"label": f"{engine.LABEL}.pid={pid}"}, ignore_removed=True
    )
    return [str(c.name) for c in found]


def _run(harness: Harness, *args: str, timeout: float = 180, **env: str) -> tuple[int, str, float]:
    """``invoke run --rev v3.13.5 ARGS`` to its end: exit code, merged output, seconds; no container left."""
    start = time.perf_counter()
    proc = harness.popen("run", "--rev", "v3.13.5", *args, **env)
    output, _ = proc.communicate(timeout=timeout)
    assert _owned_by(proc.pid) == []
    return proc.returncode, output, time.perf_counter() - start


def _error_line(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("error: "))


def test_a_fork_bomb_ends_at_the_process_limit_and_other_runs_go_on(harness: Harness, entry: CacheEntry) -> None:
    start = time.perf_counter()
    bomb = harness.popen("run", "--rev", "v3.13.5", "--", "-c", FORK_BOMB)
    code, output, _ = _run(harness, "--", "-X", "pystats", "-c", "print(sum(range(10)))")  # meanwhile
    assert code == 0 and "45" in output and "stats: 1 file(s)" in output
    bomb_output, _ = bomb.communicate(timeout=180)
    assert time.perf_counter() - start < 120
    assert bomb.returncode == LimitReached.exit_code == 16
    line = _error_line(bomb_output)
    assert line.startswith(
        "error: process limit (256) reached by run 'run': it could not start another process or thread; output kept in "
    )
    assert line.endswith("; raise pystats.run_pids if the workload really needs more")
    run_dir = Path(line.split("output kept in ", 1)[1].split(";")[0])
    assert "BlockingIOError: [Errno 11] Resource temporarily unavailable" in (run_dir / "stderr.txt").read_text()
    assert _owned_by(bomb.pid) == []


def test_an_allocation_bomb_ends_at_the_memory_limit(harness: Harness, entry: CacheEntry) -> None:
    code, output, seconds = _run(harness, "--", "-c", ALLOCATION_BOMB, INVOKE_PYSTATS_RUN_MEMORY="256m")
    assert code == 16 and seconds < 120
    assert _error_line(output).startswith("error: memory limit (256m) reached by run 'run': the kernel OOM-killed it")


def test_the_limits_reached_are_data_on_the_error(harness: Harness, entry: CacheEntry) -> None:
    ctx = harness.context()
    ctx = ctx.with_settings(ctx.settings.with_overrides(run_memory="256m", run_pids=16))
    with pytest.raises(LimitReached) as info:
        run_python(ctx, entry, RunRequest(("-c", ALLOCATION_BOMB), label="alloc"))
    assert info.value.limits == (Limit(Resource.MEMORY, "256m", "run_memory"),)
    assert info.value.run_dir.is_dir() and info.value.label == "alloc"
    with pytest.raises(LimitReached) as info:
        run_python(ctx, entry, RunRequest(("-c", FORK_BOMB), label="forks"))
    assert info.value.limits == (Limit(Resource.PROCESSES, "16", "run_pids"),)  # 16 processes fit in 256m
    fine = run_python(ctx, entry, RunRequest(("-X", "pystats", "-c", "pass"), label="fine"))  # same limits
    assert fine.exit_code == 0 and len(fine.stats_files) == 1
    assert _owned_by(os.getpid()) == []


def test_a_run_is_nobody_without_network_or_capabilities_and_writes_only_tmp_and_its_stats(
    harness: Harness, entry: CacheEntry
) -> None:
    code, output, _ = _run(harness, "--", "-c", PROBE)
    assert code == 0, output
    seen = json.loads(next(line for line in output.splitlines() if line.startswith("{")))
    assert seen["uid"] == seen["gid"] == 65534 and seen["uid"] != 0
    assert seen["interfaces"] == ["lo"]
    assert seen["cap_eff"] == "0000000000000000" and seen["no_new_privs"] == "1"
    assert seen["tmp"] == "written" and seen["stats_dir_files"] == []
    assert seen["etc"] == seen["root"] == seen["install"] == "Read-only file system"
    assert "stats: 1 file(s)" in output  # the bracket's dump, written by nobody into the run's own dir


def test_a_run_without_stats_dir_has_no_tmp_py_stats(harness: Harness, entry: CacheEntry) -> None:
    script = "import os; print(os.path.exists('/tmp/py_stats'), os.listdir('/tmp'), os.access('/tmp', os.W_OK))"
    code, output, _ = _run(harness, "--no-stats-dir", "--", "-c", script)
    assert code == 0 and "False [] True" in output


def test_a_write_outside_tmp_fails(harness: Harness, entry: CacheEntry) -> None:
    code, output, _ = _run(harness, "--", "-c", "open('/usr/lib/evil', 'w')")
    assert code == 33 and "OSError: [Errno 30] Read-only file system: '/usr/lib/evil'" in output
    assert "error: interpreter exited 1;" in output
