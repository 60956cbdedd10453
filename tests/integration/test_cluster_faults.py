"""The cluster under faults, on real Dask processes, real builds and a real Redis (all on 127.0.0.1):
the rows of the cluster faults table in docs/bisect-history-scale-out.md (printed at the end of the run
with the local ones, conftest.py; ``PYSTATS_FAULTS_TABLE=path`` writes them as Markdown too).

The tests run in order on one local cluster, whose workers come and go as the faults say. Each worker's
cache starts with the v3.13.5 build made by the other integration tests (hard links), so only the two
new commits of the mid-build row are built; ``cluster_wait`` is 10 s here."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pystats_harness.builder import integrity
from pystats_harness.builder.cache import lookup
from pystats_harness.builder.obtain import plan_for
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cluster.client import Cluster
from pystats_harness.cluster.local import LocalCluster, local_cluster
from pystats_harness.collect.loops import SCHEMA
from pystats_harness.dispatch.runner import unit_on_worker
from pystats_harness.dispatch.units import Unit
from pystats_harness.infra import engine
from pystats_harness.infra.mirror import Mirror
from pystats_harness.measure.measurer import Measured, MeasureWork
from tests.support.faults import FAULTS
from tests.support.invoke_runner import Harness
from tests.support.planted_site import planted_wheelhouse
from tests.support.repo import commit_files
from tests.support.results import forget_measurements
from tests.support.servers import Redis
from tests.support.streamed import Streamed

pytestmark = pytest.mark.integration
BASE = "v3.13.5"
METRIC = "opcode.BINARY_OP.specialization.hit / family.BINARY_OP.execution_count"
WAIT = "10"  # pystats.cluster_wait for these tests: seconds without a fit worker before exit 18
FILES = ("Objects/floatobject.c", "Objects/listobject.c")  # one new commit each, built in the mid-build row


class State:
    """The cluster and what the rows found. Each row first makes what it needs (:meth:`ensure`: two
    live workers; its own commits), so the rows do not depend on their order; the row that kills the
    scheduler does so on a cluster of its own."""

    def __init__(self, harness: Harness, base: Path, local: LocalCluster, redis: Redis, wheelhouse: Path) -> None:
        self.harness, self.base, self.local, self.redis, self.wheelhouse = harness, base, local, redis, wheelhouse
        self.settings = harness.settings.with_overrides(ccache_remote=redis.url)
        self.env = {"INVOKE_PYSTATS_CLUSTER": local.address, "INVOKE_PYSTATS_CLUSTER_WAIT": WAIT}
        self.started: list[subprocess.Popen[str]] = []  # killed at the end if a failed row left one running
        self.named = len(local.workers)

    def ensure(self, workers: int = 2) -> None:
        """At least ``workers`` live workers (new ones, each with the v3.13.5 build and the planted
        wheelhouse, as the first ones)."""
        while len(self.alive()) < workers:
            self.add(self.new_name())

    def new_name(self) -> str:
        self.named += 1
        return f"worker-{self.named}"

    def invoke(self, *args: str) -> Streamed:
        streamed = Streamed(self.harness.popen(*args, **self.env))
        self.started.append(streamed.proc)
        return streamed

    def alive(self) -> list[str]:
        return [name for name, proc in self.local.workers.items() if proc.poll() is None]

    def add(self, name: str) -> None:
        _seed(self.harness, self.local.worker_cache(name))
        self.local.add_worker(self.settings, name, {"INVOKE_PYSTATS_WHEELHOUSE_DIR": str(self.wheelhouse)})
        with Cluster[object, object](self.local.address, min_workers=len(self.alive())):
            pass

    def leftovers(self) -> list[str]:
        """What a fault may leave: harness containers of dead workers (after the next invocation reaps
        them), unit scratch directories, half-written outputs."""
        engine.reap_orphans(engine.connect())
        found = [str(p) for p in self.base.glob("worker-*/cluster-units/*")]
        found += [str(p) for p in self.base.rglob("*.partial-*")]
        for container in engine.connect().containers.list(all=True, filters={"label": engine.LABEL}):
            sources = [m.get("Source", "") for m in container.attrs.get("Mounts", [])]
            if any(s.startswith(str(self.base)) for s in sources):
                found.append(str(container.name))
        return found


def _seed(harness: Harness, cache: Path) -> None:
    """The v3.13.5 build of the other integration tests into a worker's cache (hard links: entries are
    never written after their completion marker)."""
    key = plan_for(harness.context(), Recipe(Mirror(harness.settings.mirror_dir).resolve(BASE))).key
    target = cache / "builds" / key
    if lookup(harness.settings.builds_dir, key) is not None and not target.exists():
        shutil.copytree(harness.settings.builds_dir / key, target, copy_function=os.link)


#: fails every benchmark process while ``fail`` is in plant.txt (read at each start)
FAIL_WHEN_PLANTED = (
    "import os, sys\n"
    "PLANT = open(os.path.join(os.path.dirname(__file__), 'plant.txt')).read().strip()\n"
    "if PLANT == 'fail' and sys.argv and sys.argv[0].startswith('/bench/'):\n"
    "    raise SystemExit('planted: this benchmark fails on this worker')\n"
)


@pytest.fixture(scope="module")
def state(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> Iterator[State]:
    base = tmp_path_factory.mktemp("cluster-faults")
    assert harness.invoke("build", "--rev", BASE, timeout=1800).returncode == 0  # a cache hit after test_build
    forget_measurements(harness.settings.paths)  # measure on the workers
    wheelhouse = planted_wheelhouse(
        harness.settings.wheelhouse_dir, base / "planted-wheelhouse", FAIL_WHEN_PLANTED, "none"
    )
    redis = Redis(base)
    try:
        settings = harness.settings.with_overrides(ccache_remote=redis.url)
        for name in ("worker-1", "worker-2"):
            _seed(harness, base / name)
        planted = {"INVOKE_PYSTATS_WHEELHOUSE_DIR": str(wheelhouse)}  # every worker: "none" until a row plants
        with local_cluster(settings, base, 2, {"worker-1": planted, "worker-2": planted}) as local:
            with Cluster[object, object](local.address, min_workers=2):
                pass
            state = State(harness, base, local, redis, wheelhouse)
            try:
                yield state
            finally:
                for proc in state.started:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
    finally:
        redis.stop()
        engine.reap_orphans(engine.connect())


def _busy(state: State, kind: str, deadline: float) -> set[str]:
    """Workers with a running ``kind`` container ("build", or "run": any other), found by its mounts."""
    client, end = engine.connect(), time.monotonic() + deadline
    while time.monotonic() < end:
        found = set()
        for container in client.containers.list(filters={"label": engine.LABEL, "status": "running"}):
            if (str(container.name).startswith("pystats-harness-build")) != (kind == "build"):
                continue
            sources = [m.get("Source", "") for m in container.attrs.get("Mounts", [])]
            found |= {n for n in state.alive() if any(s.startswith(str(state.local.worker_cache(n))) for s in sources)}
        if found:
            return found
        time.sleep(0.3)
    return set()


def test_a_worker_killed_mid_measure(state: State) -> None:
    """The v3.13.5 build is cached on both workers: the unit's measurement (a part without the build
    slot) dies with its worker and the unit runs again on the other."""
    state.ensure(2)
    commit = Mirror(state.harness.settings.mirror_dir).resolve(BASE)
    results: list[Measured] = []

    def run() -> None:
        with Cluster[Unit[tuple[Measured, ...]], tuple[Measured, ...]](state.local.address) as client:
            (row,) = client.run_units(unit_on_worker, [Unit(Recipe(commit), MeasureWork(METRIC, (("nbody", 600),)))])
            results.extend(row)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    (victim,) = _busy(state, "run", deadline=300) or {"none"}
    assert victim != "none", "no worker started measuring within 300 s"
    time.sleep(2)
    state.local.kill_worker(victim)
    thread.join(timeout=600)
    survived = not thread.is_alive() and len(results) == 1 and results[0].outcome.usable
    left = state.leftovers()
    FAULTS.append(("cluster: worker killed mid-measure", survived, 0, len(left)))
    assert survived and results[0].worker != victim, results
    assert left == [], left
    state.add(victim)  # restarted under a new address, with its cache: it takes units again


def test_a_worker_killed_mid_build_redis_killed_and_a_worker_added(state: State, tmp_path: Path) -> None:
    """A history whose two new commits build at once on worker-1 and worker-2: worker-3 joins, then
    Redis (the shared ccache) is killed and one building worker with it. The survivor's build
    finishes on its local ccache; the victim's unit is built again by the worker that joined."""
    state.ensure(2)
    sha = _commits(state, "test/cf-build", f"mid-build {uuid.uuid4().hex}")  # new commits: nothing cached
    out = tmp_path / "history"
    args = ("--from", BASE, "--to", sha, "--count", "3", "--workload", "nbody", "--metric", METRIC, "--out", str(out))
    history = state.invoke("history", *args)
    builders = _busy(state, "build", deadline=300)
    deadline = time.monotonic() + 120
    while len(builders) < 2 and time.monotonic() < deadline:
        builders = _busy(state, "build", deadline=5)
    assert len(builders) == 2, f"two builds at once expected, saw {builders}"
    joined = state.new_name()
    state.add(joined)
    state.redis.stop()  # mid-build on both
    victim = sorted(builders)[0]
    state.local.kill_worker(victim)
    rest = history.finish(timeout=1800)
    doc = json.loads((out / "history.json").read_text()) if out.joinpath("history.json").is_file() else {}
    commits = doc.get("commits", [])
    usable = history.proc.returncode == 0 and len(commits) == 3 and not any(c["failure"] for c in commits)
    by = {c["worker"] for c in commits}
    rebuilt = {c["worker"] for c in commits if c["built"]}  # the two new commits (the victim built one)
    survivor = (builders - {victim}).pop()
    builds = state.local.worker_cache(victim) / "builds"
    served = [e for p in builds.iterdir() if not p.name.startswith(".") and (e := lookup(builds, p.name)) is not None]
    damaged = sum(1 for e in served if integrity.check(e) != [])
    left = state.leftovers()
    FAULTS.append(("cluster: worker killed mid-build", usable and victim not in rebuilt, damaged, len(left)))
    FAULTS.append(("cluster: Redis killed mid-build", usable and survivor in by, 0, 0))
    FAULTS.append(("cluster: worker added mid-run", joined in by, 0, 0))
    assert usable, "".join(history.lines)[-3000:] + rest[-3000:]
    assert victim not in rebuilt and joined in by, commits
    assert damaged == 0 and left == [], left


def _commits(state: State, branch: str, mark: str) -> str:
    """Two commits after v3.13.5 on ``branch`` (one small change each to ``FILES``), made by this row."""
    mirror = state.harness.settings.mirror_dir
    sha = Mirror(mirror).resolve(BASE).sha
    for n, path in enumerate(FILES):
        text = subprocess.run(
            ["git", "--git-dir", str(mirror), "show", f"{sha}:{path}"], capture_output=True, text=True
        )
        change = {path: ("100644", text.stdout + f"/* cluster fault {n}: {mark} */\n")}
        sha = commit_files(mirror, sha, change, f"cluster fault {n} ({mark})", branch=branch)
    return sha


def test_every_worker_killed_is_a_bounded_wait_then_exit_18(state: State, tmp_path: Path) -> None:
    state.ensure(2)
    tip = _commits(state, "test/cf-all", "every worker killed")
    out = tmp_path / "history"
    args = ("--from", BASE, "--to", tip, "--count", "2", "--workload", "nbody", "--out", str(out))
    start = time.monotonic()
    history = state.invoke("history", *args, "--metric", "family.BINARY_OP.execution_count")
    history.wait_for("measuring 2 of", deadline=900, contains=True)
    killed = state.alive()
    for name in killed:
        state.local.kill_worker(name)
    history.finish(timeout=120)
    took = time.monotonic() - start
    text = "".join(history.lines)
    error = [line for line in text.splitlines() if line.startswith("error:")]
    named = all(f"{n}:" in text for n in killed)
    survived = history.proc.returncode == 18 and len(error) == 1 and named and not out.exists()
    FAULTS.append((f"cluster: every worker killed (18 in {took:.0f} s)", survived, 0, len(state.leftovers())))
    assert survived, text[-3000:]
    state.ensure(2)  # for the rows after this one


def _collect(state: State, out: Path, loops: Path) -> Streamed:
    args = ("--rev", BASE, "--benchmarks", "nbody", "--loops-file", str(loops), "--out", str(out))
    return state.invoke("collect", *args)


@pytest.fixture
def loops(tmp_path: Path) -> Path:
    path = tmp_path / "loops.json"
    path.write_text(json.dumps({"schema": SCHEMA, "loops": {"nbody": 4}}))
    return path


def test_ctrl_c_during_a_cluster_collect(state: State, tmp_path: Path, loops: Path) -> None:
    state.ensure(1)
    out = tmp_path / "collect"
    collect = _collect(state, out, loops)
    deadline = time.monotonic() + 300
    while not list(state.base.glob("worker-*/cluster-units/*")) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert list(state.base.glob("worker-*/cluster-units/*")), "no unit started within 300 s"
    collect.proc.send_signal(signal.SIGINT)
    collect.finish(timeout=60)
    deadline = time.monotonic() + 300  # the unit already running finishes on its worker, then cleans up
    while list(state.base.glob("worker-*/cluster-units/*")) and time.monotonic() < deadline:
        time.sleep(1)
    left = state.leftovers()
    survived = collect.proc.returncode == 130 and not out.exists() and not list(tmp_path.glob("*.partial-*"))
    FAULTS.append(("cluster: Ctrl-C during a collect", survived, 0, len(left)))
    assert survived, "".join(collect.lines)[-3000:]
    assert left == [], left


def test_a_benchmark_that_fails_on_a_worker_is_exit_25_naming_it(state: State, tmp_path: Path, loops: Path) -> None:
    state.ensure(1)
    (state.wheelhouse / "site" / "plant.txt").write_text("fail\n")
    try:
        out = tmp_path / "collect"
        collect = _collect(state, out, loops)
        text = "".join(collect.lines) + collect.finish(timeout=900)
    finally:
        (state.wheelhouse / "site" / "plant.txt").write_text("none\n")
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").is_file() else {}
    by = report.get("metadata", {}).get("measured_by", {}).get("nbody", "?")
    survived = collect.proc.returncode == 25 and "nbody: failed" in text and f"on {by}" in text
    FAULTS.append(("cluster: a benchmark fails (exit 25)", survived, 0, len(state.leftovers())))
    assert survived, text[-3000:]
    assert by in state.local.workers


def test_the_scheduler_killed_is_exit_18_and_nothing_written(state: State, tmp_path: Path) -> None:
    """On a cluster of its own (one worker), so the shared one lives on for the other rows."""
    tip = _commits(state, "test/cf-scheduler", "scheduler killed")
    out = tmp_path / "history"
    args = ("--from", BASE, "--to", tip, "--count", "2", "--workload", "nbody", "--out", str(out))
    metric = "family.LOAD_ATTR.execution_count"  # not measured before: the units go out
    own = tmp_path / "cluster"
    _seed(state.harness, own / "worker-1")
    with local_cluster(state.settings, own, 1) as local:
        with Cluster[object, object](local.address, min_workers=1):
            pass
        env = {"INVOKE_PYSTATS_CLUSTER": local.address, "INVOKE_PYSTATS_CLUSTER_WAIT": WAIT}
        history = Streamed(state.harness.popen("history", *args, "--metric", metric, **env))
        state.started.append(history.proc)
        history.wait_for("measuring 2 of", deadline=900, contains=True)
        start = time.monotonic()
        local.kill_scheduler()
        text = "".join(history.lines) + history.finish(timeout=120)
        took = time.monotonic() - start
    survived = history.proc.returncode == 18 and "stopped answering" in text and not out.exists()
    FAULTS.append((f"cluster: scheduler killed (18 in {took:.0f} s)", survived, 0, len(state.leftovers())))
    assert survived, text[-3000:]
