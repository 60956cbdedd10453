"""Faults a long-running harness meets, on the real engine and real CPython builds: two invocations
building the same revision, SIGKILL at every build phase, a damaged entry, a full disk, pruning.

Every fault ends in one of two states, never a third: no entry, or an entry whose recorded contents
check out. The table of what was tried is printed at the end of the run (see conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from pystats_harness.builder import integrity
from pystats_harness.builder.cache import MARKER, CacheEntry, lookup
from pystats_harness.infra import engine
from tests.support.builds import cache_key
from tests.support.faults import FAULTS
from tests.support.invoke_runner import ROOT, Harness
from tests.support.repo import commit_files
from tests.support.streamed import Streamed

FLAGS = "--with-computed-gotos"  # a build of v3.13.5 of its own (its own key), shared by these tests
PHASES = ("checkout", "configure", "make", "install", "fingerprint", "commit")


@pytest.fixture(scope="module")
def flags_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("faults") / "configure.toml"
    path.write_text(f'flags = ["{FLAGS}"]\n')
    return str(path)


def _build(harness: Harness, flags_file: str) -> Streamed:
    return Streamed(harness.popen("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags_file))


def _leftovers(harness: Harness, pid: int) -> list[str]:
    s = harness.settings
    found = [str(p) for p in s.builds_dir.glob(f".staging-*-{pid}-*")] + [
        str(p) for p in s.worktrees_dir.glob(f"wt-*-{pid}-*")
    ]
    client = engine.connect()
    found += [
        c.name or ""
        for c in client.containers.list(all=True, filters={"label": f"{engine.LABEL}.pid={pid}"}, ignore_removed=True)
    ]
    return found


def _served_entry_is_sound(harness: Harness, key: str) -> bool:
    entry = lookup(harness.settings.builds_dir, key)
    return entry is None or integrity.check(entry) == []


@pytest.fixture(scope="module")
def fault_key(harness: Harness, flags_file: str) -> str:
    dry = harness.invoke("build", "--rev", "v3.13.5", "--dry-run", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags_file)
    assert dry.returncode == 0, dry.stderr
    return cache_key(dry.stdout.splitlines())


@pytest.fixture(scope="module")
def kills(harness: Harness, flags_file: str, fault_key: str) -> dict[str, tuple[int, bool]]:
    """kill -9 when the build announces each phase, one build at a time: phase -> (pid, whether the
    entry served afterwards is sound). Made once, whichever test asks first, so the tests do not depend
    on their order."""
    done = {}
    for phase in PHASES:
        entry = harness.settings.builds_dir / fault_key
        (entry / MARKER).unlink(missing_ok=True)
        shutil.rmtree(entry, ignore_errors=True)  # each phase starts from no build of this key
        build = _build(harness, flags_file)
        build.wait_for(f"» {phase}", deadline=900)
        build.proc.kill()
        build.finish(timeout=120)
        sound = _served_entry_is_sound(harness, fault_key)
        done[phase] = (build.proc.pid, sound)
        FAULTS.append((f"SIGKILL during {phase}", sound, 0 if sound else 1, -1))
    return done


@pytest.mark.parametrize("phase", PHASES)
def test_sigkill_at_each_build_phase(kills: dict[str, tuple[int, bool]], phase: str) -> None:
    """kill -9 when the build announces ``phase``: no entry, or one whose contents check out."""
    _, sound = kills[phase]
    assert sound, "a killed build left an entry that does not match its contents"


def test_after_the_kills_the_next_build_succeeds_and_leaves_nothing(
    harness: Harness, flags_file: str, fault_key: str, kills: dict[str, tuple[int, bool]]
) -> None:
    nxt = harness.invoke("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags_file, timeout=1800)
    assert nxt.returncode == 0, nxt.stdout[-2000:] + nxt.stderr[-2000:]
    entry = lookup(harness.settings.builds_dir, fault_key)
    assert entry is not None and integrity.check(entry) == []
    left = [item for pid, _ in kills.values() for item in _leftovers(harness, pid)]
    FAULTS[:] = [(f, s, d, len(left) if n == -1 else n) for f, s, d, n in FAULTS]
    assert left == [], left


def test_two_builds_of_the_same_key_one_waits(harness: Harness, flags_file: str, tmp_path: Path) -> None:
    """The second invocation says whose build it waits for, then takes the cache hit (a fresh key:
    the configure flags differ from the other tests')."""
    flags = tmp_path / "configure.toml"
    flags.write_text(f'flags = ["{FLAGS}", "--without-doc-strings"]\n')
    dry = harness.invoke("build", "--rev", "v3.13.5", "--dry-run", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=str(flags))
    entry = harness.settings.builds_dir / cache_key(dry.stdout.splitlines())
    (entry / MARKER).unlink(missing_ok=True)
    shutil.rmtree(entry, ignore_errors=True)  # a run before this one may have made it
    first = Streamed(harness.popen("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=str(flags)))
    first.wait_for("» configure", deadline=600)
    second = Streamed(harness.popen("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=str(flags)))
    rest_first, rest_second = first.finish(timeout=1800), second.finish(timeout=1800)
    assert first.proc.returncode == 0 and second.proc.returncode == 0, rest_first + rest_second
    out = "".join(second.lines)
    assert f"waiting for the build of v3.13.5 (fa60d1ecaf) by pid {first.proc.pid} (build of v3.13.5" in out, out
    assert "was built meanwhile: cache hit" in out
    path = [line.split()[1] for line in (first.lines + second.lines) if line.startswith("build ")]
    assert len(path) == 2 and path[0] == path[1]
    FAULTS.append(("two builds of one key at once", True, 0, 0))


def test_a_damaged_entry_is_found_and_rebuilt(harness: Harness, flags_file: str) -> None:
    out = harness.invoke("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags_file, timeout=1800)
    assert out.returncode == 0, out.stderr[-2000:]
    key = cache_key(out.stdout.splitlines())
    entry = CacheEntry(harness.settings.builds_dir / key)
    binary = next((entry.install_dir / "bin").glob("python3.*[0-9]"))
    data = bytearray(binary.read_bytes())
    data[len(data) // 2] ^= 0xFF
    binary.write_bytes(bytes(data))
    (entry.install_dir / "lib" / "python3.13" / "os.py").unlink()
    verify = harness.invoke("cache", "verify")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    damaged = [line for line in verify.stdout.splitlines() if key in line and "damaged" in line]
    assert len(damaged) == 1 and "marked invalid" in damaged[0], verify.stdout
    assert lookup(harness.settings.builds_dir, key) is None and not (entry.path / MARKER).exists()
    again = harness.invoke("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags_file, timeout=1800)
    assert again.returncode == 0 and "» make" in again.stderr + again.stdout, again.stderr[-2000:]
    assert integrity.check(CacheEntry(harness.settings.builds_dir / key)) == []
    assert harness.invoke("cache", "verify").returncode == 0
    FAULTS.append(("byte flipped + file deleted in an entry", True, 0, 0))


def test_prune_keeps_what_is_used_and_says_what_it_freed(harness: Harness, flags_file: str, tmp_path: Path) -> None:
    out = harness.invoke("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CONFIGURE_FLAGS_FILE=flags_file, timeout=1800)
    key = cache_key(out.stdout.splitlines())
    scratch = tmp_path / "cache"
    for name, age in (("a" * 24, 5), ("b" * 24, 1)):  # two entries (hard-linked copies), a used 5 days ago
        shutil.copytree(harness.settings.builds_dir / key, scratch / "builds" / name, copy_function=os.link)
        (scratch / "runs" / f"20260101T000000-{name[:8]}-run-123456").mkdir(parents=True)
        use = scratch / "builds" / ".locks" / f"{name}.use"
        use.parent.mkdir(exist_ok=True)
        use.touch()
        stamp = use.stat().st_mtime - age * 86400
        os.utime(use, (stamp, stamp))
    on_scratch = Harness(scratch)
    listed = on_scratch.invoke("cache", "list")
    assert listed.returncode == 0 and "a" * 24 in listed.stdout and "b" * 24 in listed.stdout, listed.stdout
    for refused in (("--keep", "-1"), ("--keep", "0")):  # a typo, then every build: neither removes anything
        out = on_scratch.invoke("cache", "prune", *refused)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, (refused, out.stderr)
        assert on_scratch.invoke("cache", "list").stdout == listed.stdout
    assert "prune would remove 2 builds" in out.stderr and "--yes" in out.stderr, out.stderr
    pruned = on_scratch.invoke("cache", "prune", "--older-than", "3")
    assert pruned.returncode == 0, pruned.stderr
    assert f"removed {'a' * 24}" in pruned.stdout and "removed 1 build(s)" in pruned.stdout, pruned.stdout
    assert sorted(p.name for p in (scratch / "builds").iterdir() if not p.name.startswith(".")) == ["b" * 24]
    assert [p.name[16:24] for p in (scratch / "runs").iterdir()] == ["b" * 8]


@pytest.fixture
def small_disk(tmp_path: Path) -> Path:
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_during_a_real_build(harness: Harness, small_disk: Path) -> None:
    """The cache on a 300 MB file system: the build runs out of space while compiling. One line, exit
    15, no half entry, and the rest of the cache (an entry made before) intact."""
    cache = small_disk / "cache"
    existing = cache / "builds" / ("c" * 24)
    (existing / "install").mkdir(parents=True)
    (existing / "install" / "python3").write_text("an earlier build")
    (existing / MARKER).write_text("complete\n")
    on_small = Harness(cache)
    mirrored = on_small.invoke("mirror", "--remote", str(harness.settings.mirror_dir))
    assert mirrored.returncode == 0, mirrored.stdout + mirrored.stderr
    out = on_small.invoke("build", "--rev", "v3.13.5", timeout=1800)
    assert out.returncode == 15, out.stdout[-2000:] + out.stderr[-3000:]
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("error: no space left on the device of") and "nothing half-made was kept" in last, last
    builds = sorted(p.name for p in (cache / "builds").iterdir() if not p.name.startswith(".locks"))
    assert builds == ["c" * 24], builds
    assert (existing / "install" / "python3").read_text() == "an earlier build" and (existing / MARKER).exists()
    assert not list((cache / "worktrees").glob("wt-*"))
    FAULTS.append(("disk full during a real build", True, 0, 0))


def test_the_engine_stops_mid_run(harness: Harness) -> None:
    """dockerd killed while a run waits for its container: exit 5 and one line; once the engine is
    back, the same command works and the dead run's container is cleaned up without manual steps."""
    assert harness.invoke("build", "--rev", "v3.13.5").returncode == 0
    run = harness.popen("run", "--rev", "v3.13.5", "--", "-c", "import time; time.sleep(300)")
    client = engine.connect()
    mine = {"label": f"{engine.LABEL}.pid={run.pid}", "status": "running"}
    deadline = time.monotonic() + 120
    while not client.containers.list(filters=mine):
        assert run.poll() is None and time.monotonic() < deadline, "the run's container never started"
        time.sleep(0.5)
    subprocess.run(["pkill", "-9", "-x", "dockerd"], check=True)
    try:
        output = run.communicate(timeout=120)[0]
    finally:
        subprocess.run(["bash", "scripts/install-host.sh"], cwd=ROOT, check=True, capture_output=True, timeout=300)
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert run.returncode == 5, output
    assert len(errors) == 1 and "the Docker engine stopped answering" in errors[0], output
    again = harness.invoke("run", "--rev", "v3.13.5", "--", "-c", "print('engine is back')")
    assert again.returncode == 0 and "engine is back" in again.stdout, again.stdout + again.stderr
    left = engine.connect().containers.list(
        all=True, filters={"label": f"{engine.LABEL}.pid={run.pid}"}, ignore_removed=True
    )
    assert left == [], [c.name for c in left]
    FAULTS.append(("Docker engine killed mid-run", True, 0, len(left)))


def test_four_invocations_on_different_revisions_share_the_cache(harness: Harness) -> None:
    """Four bisect-run invocations at once, each on its own new commit: they build through the same
    ccache, lanes and mirror; every one measures its commit and every build checks out afterwards."""
    mirror = harness.settings.mirror_dir
    base = subprocess.run(
        ["git", "--git-dir", str(mirror), "rev-parse", "v3.13.5^{commit}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    stamp = time.strftime("%Y%m%d%H%M%S")
    files = ("Objects/floatobject.c", "Objects/longobject.c", "Objects/listobject.c", "Objects/dictobject.c")
    shas = []
    for n, path in enumerate(files):
        text = subprocess.run(
            ["git", "--git-dir", str(mirror), "show", f"{base}:{path}"], capture_output=True, text=True, check=True
        ).stdout
        change = {path: ("100644", text + f"/* concurrency test {stamp} {n} */\n")}
        shas.append(commit_files(mirror, base, change, f"concurrency test {n}", branch=f"test/concurrent-{n}"))
    metric = "opcode.BINARY_OP.specialization.hit / family.BINARY_OP.execution_count"
    runs = [
        harness.popen("bisect-run", "--rev", sha, "--workload", "nbody", "--metric", metric, "--threshold", "0.5")
        for sha in shas
    ]
    outputs = [run.communicate(timeout=2400)[0] for run in runs]
    for sha, run, output in zip(shas, runs, outputs, strict=True):
        assert run.returncode in (0, 1), f"{sha[:10]} exit {run.returncode}:\n{output[-3000:]}"
        assert f"bisect-run {sha[:10]}" in output, output[-2000:]
    verify = harness.invoke("cache", "verify")
    assert verify.returncode == 0 and "damaged" not in verify.stdout, verify.stdout
    fsck = subprocess.run(["git", "--git-dir", str(mirror), "worktree", "list"], capture_output=True, text=True)
    assert fsck.returncode == 0 and "wt-" not in fsck.stdout, fsck.stdout
    FAULTS.append(("four invocations on four revisions at once", True, 0, 0))
