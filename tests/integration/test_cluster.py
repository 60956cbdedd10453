"""Scale-out on one machine: a real Dask scheduler, real worker processes (separate cache directories,
the one Docker engine) and a real redis-server (ccache_remote) on 127.0.0.1.

* a k-ary bisect over the planted-change series (tests/support/planted.py) on 2 workers finds the
  planted commit, as the local bisect does, in fewer rounds (3 rounds against 4 binary steps);
* a third worker without a Docker engine and a fourth whose Python cannot import the harness take no
  units, and the report names both with their reason;
* a worker killed in the middle of a build: the unit completes on the other worker, and the dead
  worker's half entry has no completion marker (never served);
* `invoke validate` and `invoke collect` with ``pystats.cluster`` set run on the workers (a commit of the
  series the history test built before, so mostly build-cache hits) and write their outputs here.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pystats_harness.builder.cache import lookup
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cluster.client import Cluster
from pystats_harness.cluster.local import LocalCluster, local_cluster
from pystats_harness.config import Settings
from pystats_harness.dispatch.runner import unit_on_worker
from pystats_harness.dispatch.units import Unit
from pystats_harness.infra import engine
from pystats_harness.infra.mirror import Mirror
from pystats_harness.measure.measurer import Measured, MeasureWork
from tests.support.invoke_runner import Harness
from tests.support.planted import BASE, BRANCH, METRIC, PLANTED, SCRIPT, WORKLOAD, planted_history
from tests.support.repo import commit_files
from tests.support.results import forget_measurements
from tests.support.servers import redis_server

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("benchmark_wheelhouse")]
BINARY_STEPS = 4  # the local bisect of this series: 4, 6 (fails), 7, 5
WORKER_SETTINGS: list[Settings] = []


@pytest.fixture(scope="module")
def series(harness: Harness) -> list[str]:
    return planted_history(harness.settings.mirror_dir)


@pytest.fixture(scope="module")
def cluster(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    base = tmp_path_factory.mktemp("cluster")
    # the local bisect tests measured this series on this machine, and a cluster client answers from its
    # own results store first: start without it, so that these tests measure on the workers
    forget_measurements(harness.settings.paths)
    hidden = base / "no-harness"  # a real worker whose Python cannot import pystats_harness
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text("import sys\n\nsys.modules['pystats_harness'] = None\n")
    unfit = {
        "worker-3": {"DOCKER_HOST": f"unix://{base}/no-engine.sock"},
        "worker-4": {"PYTHONPATH": str(hidden)},
    }
    with redis_server(base) as redis:
        settings = harness.settings.with_overrides(ccache_remote=redis.url)
        WORKER_SETTINGS[:] = [settings]  # a row that kills a worker starts it again with these
        with local_cluster(settings, base, 4, worker_extra=unfit) as local:
            with Cluster[object, object](local.address, min_workers=4):
                pass
            yield local
    engine.reap_orphans(engine.connect())  # the killed worker's build container, if it still runs


@pytest.fixture(autouse=True)
def measured_on_the_workers(harness: Harness) -> None:
    """A cluster client answers from this machine's results store first (worker ""): each row starts
    without it, so that it measures on the workers whatever the rows before it measured."""
    forget_measurements(harness.settings.paths)


def test_k_ary_bisect_on_two_workers(
    harness: Harness, series: list[str], cluster: LocalCluster, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = ["--good", BASE, "--bad", BRANCH, "--workload", WORKLOAD, "--metric", METRIC, "--out", str(out)]
    args.append("--no-confirm")  # confirming runs on this machine; test_bisect covers it
    proc = harness.invoke("bisect", *args, INVOKE_PYSTATS_CLUSTER=cluster.address)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / "report.json").read_text())
    run = report["run"]
    print(
        f"\nk-ary bisect: {run['rounds']} rounds, {run['builds']} builds on {run['workers']} workers, {run['wall_seconds']} s"
    )
    assert report["first_bad"]["sha"] == series[PLANTED]
    assert run["workers"] == 2 and run["rounds"] < BINARY_STEPS
    assert set(run["unfit_workers"]) == {"worker-3", "worker-4"} and "Docker" in run["unfit_workers"]["worker-3"]
    assert "pystats_harness is not importable" in run["unfit_workers"]["worker-4"]
    assert {s["worker"] for s in run["steps"]} == {"worker-1", "worker-2"}
    assert "worker-3" in proc.stdout + proc.stderr and "worker-4" in proc.stdout + proc.stderr


def _building_worker(cluster: LocalCluster, deadline: float) -> str | None:
    """The worker whose build container is running (found by its mounts), within ``deadline`` seconds."""
    client, end = engine.connect(), time.monotonic() + deadline
    while time.monotonic() < end:
        for container in client.containers.list(filters={"label": engine.LABEL, "name": "pystats-harness-build"}):
            sources = [m.get("Source", "") for m in container.attrs.get("Mounts", [])]
            for name in cluster.workers:
                if any(s.startswith(str(cluster.worker_cache(name))) for s in sources):
                    return name
        time.sleep(0.5)
    return None


def test_a_worker_killed_mid_build_the_unit_completes_elsewhere(
    harness: Harness, series: list[str], cluster: LocalCluster
) -> None:
    # a commit of its own (after series[8]), so that no other row has built it, whatever their order
    mirror = harness.settings.mirror_dir
    path = "Objects/floatobject.c"
    text = Mirror(mirror).read_file(series[8], path) or ""
    change = {path: ("100644", text + f"/* worker killed mid-build {uuid.uuid4().hex} */\n")}
    sha = commit_files(mirror, series[8], change, "a worker killed mid-build", branch="test/cluster-kill")
    commit = Mirror(mirror).resolve(sha)
    results: list[Measured] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with Cluster[Unit[tuple[Measured, ...]], tuple[Measured, ...]](cluster.address) as client:
                (row,) = client.run_units(unit_on_worker, [Unit(Recipe(commit), MeasureWork(METRIC, ((WORKLOAD, 3),)))])
                results.extend(row)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    victim = _building_worker(cluster, deadline=300)
    assert victim is not None, "no worker started building within 300 s"
    time.sleep(3)  # well inside the build
    cluster.kill_worker(victim)
    thread.join(timeout=1200)
    assert not thread.is_alive() and not errors, errors
    (result,) = results
    survivor = ({"worker-1", "worker-2"} - {victim}).pop()
    assert result.worker == survivor and result.outcome.usable, result
    assert lookup(cluster.worker_cache(survivor) / "builds", result.build_key) is not None
    assert lookup(cluster.worker_cache(victim) / "builds", result.build_key) is None  # the half entry is never served
    cluster.add_worker(WORKER_SETTINGS[0], victim)  # back, with its cache: the other rows have their two workers
    with Cluster[object, object](cluster.address, min_workers=4):
        pass


def test_history_on_the_cluster_flags_the_planted_change(
    harness: Harness, series: list[str], cluster: LocalCluster, tmp_path: Path
) -> None:
    out = tmp_path / "history"
    second = "family.BINARY_OP.execution_count"
    args = ["--from", BASE, "--to", BRANCH, "--every", "3", "--workload", WORKLOAD, "--out", str(out)]
    proc = harness.invoke(
        "history", *args, "--metric", METRIC, "--metric", second, INVOKE_PYSTATS_CLUSTER=cluster.address
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((out / "history.json").read_text())
    assert [c["sha"] for c in doc["commits"]] == [series[i] for i in (0, 3, 6, 9)]
    assert doc["commits"][2]["failure"] and "build failed" in doc["commits"][2]["failure"]  # the broken commit
    (change,) = doc["change_points"]  # the specialization share drops; the execution count does not move
    assert change["metric"] == METRIC and change["from"] == series[3] and change["at"] == series[9]
    assert change["unmeasured_between"] == 5 and f"--good {series[3][:12]}" in proc.stdout
    assert (out / "history.png").stat().st_size > 10_000 and "Change points" in (out / "history.md").read_text()


def test_history_of_two_benchmarks_then_again_from_this_machines_results(
    harness: Harness, series: list[str], cluster: LocalCluster, tmp_path: Path
) -> None:
    """``--benchmarks``: one unit per commit measures both benchmarks (one build); the same history
    again is answered by this machine's results store, nothing sent to a worker."""
    args = ["--from", BASE, "--to", BRANCH, "--count", "2", "--benchmarks", "nbody,float", "--metric", METRIC]
    docs = []
    for run in ("first", "again"):
        proc = harness.invoke("history", *args, "--out", str(tmp_path / run), INVOKE_PYSTATS_CLUSTER=cluster.address)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        docs.append(json.loads((tmp_path / run / "history.json").read_text()))
    first, again = docs
    metric = first["metrics"][0]
    assert [s["name"] for s in first["series"]] == [f"{metric} @ float", f"{metric} @ nbody"]  # MANIFEST order
    assert [c["sha"] for c in first["commits"]] == [series[0], series[-1]]
    assert {c["worker"] for c in first["commits"]} <= {"worker-1", "worker-2"} and first["run"]["sent_to_workers"] == 2
    moved = {p["metric"] for p in first["change_points"]}
    assert moved == {f"{metric} @ nbody", f"{metric} @ float"}, first["commits"]  # float additions no longer specialize
    print(f"\nhistory of 2 benchmarks: {first['run']}; again: {again['run']}")
    assert again["run"]["sent_to_workers"] == 0 and again["run"]["builds"] == 0
    assert {c["source"] for c in again["commits"]} == {"results store"} and {c["worker"] for c in again["commits"]} == {
        ""
    }
    assert [c["values"] for c in again["commits"]] == [c["values"] for c in first["commits"]]


def test_a_workload_script_travels_with_the_unit(
    harness: Harness, series: list[str], cluster: LocalCluster, tmp_path: Path
) -> None:
    script = tmp_path / "float_adds.py"
    script.write_text(SCRIPT)
    out = tmp_path / "history"
    args = ["--from", BASE, "--to", BRANCH, "--count", "2", "--workload", str(script), "--metric", METRIC]
    proc = harness.invoke("history", *args, "--out", str(out), INVOKE_PYSTATS_CLUSTER=cluster.address)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((out / "history.json").read_text())
    assert {c["worker"] for c in doc["commits"]} <= {"worker-1", "worker-2"} and doc["run"]["sent_to_workers"] == 2
    (change,) = doc["change_points"]  # the script's float additions stop specializing at the planted commit
    assert change["at"] == series[-1] and change["relative"] < -0.5


#: A commit of the series before the planted change (its stats are 3.13.5's: the baselines hold) that the
#: history test above built on a worker.
VALIDATED = 3
FAST = "nbody,logging,python_startup"  # as in test_collect.py: trusted, declared variable, bench_command


def test_validate_on_the_cluster(harness: Harness, series: list[str], cluster: LocalCluster, tmp_path: Path) -> None:
    out, start = tmp_path / "validate", time.monotonic()
    args = ["--rev", series[VALIDATED], "--workloads", "nbody", "--out", str(out)]
    proc = harness.invoke("validate", *args, INVOKE_PYSTATS_CLUSTER=cluster.address)
    text = proc.stdout + proc.stderr
    print(f"\nvalidate on the cluster: {time.monotonic() - start:.0f} s")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / "validation.json").read_text())
    assert report["metadata"]["sha"] == series[VALIDATED] and report["metadata"]["worker"] in {"worker-1", "worker-2"}
    assert [s["status"] for s in report["steps"]] == ["pass"] * 6  # threads included
    assert (out / "validation.md").is_file() and (out / "deviation.png").is_file()
    assert re.search(r"validated on worker-[12] \(", proc.stdout), proc.stdout[-2000:]
    assert "cluster worker worker-3 takes no units" in text


def test_collect_on_the_cluster(harness: Harness, series: list[str], cluster: LocalCluster, tmp_path: Path) -> None:
    out, start = tmp_path / "collect", time.monotonic()
    args = ["--rev", series[VALIDATED], "--benchmarks", FAST, "--out", str(out)]
    proc = harness.invoke("collect", *args, INVOKE_PYSTATS_CLUSTER=cluster.address)
    print(f"\ncollect on the cluster: {time.monotonic() - start:.0f} s")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / "report.json").read_text())
    verdicts = {b["name"]: b["verdict"] for b in report["benchmarks"]}
    # logging is declared in configs/collect.toml (its work depends on the clock): exact, approximate, or
    # within the machinery bound only
    assert verdicts["logging"] in {"trusted", "approximate", "bounded"}
    assert {**verdicts, "logging": "-"} == {"nbody": "trusted", "logging": "-", "python_startup": "unreliable"}
    meta = report["metadata"]
    assert meta["sha"] == series[VALIDATED] and meta["cluster"] == cluster.address
    assert set(meta["measured_by"]) == set(verdicts) and set(meta["measured_by"].values()) <= {"worker-1", "worker-2"}
    # two chunks per worker (one is left when the killed-worker test ran before), never an empty one
    assert len(meta["units"]) == min(3, 2 * meta["workers"]) and "worker-3" in meta["unfit_workers"]
    text = proc.stdout + proc.stderr
    for name, worker in meta["measured_by"].items():
        assert re.search(rf"^{name}: {verdicts[name]} \(\d+ s\) on {worker}\b", text, re.MULTILINE), name
    for path in ("loops.json", "trust.md", "all/collection.json", "all/summarize.json"):
        assert (out / path).is_file(), path
    assert all((out / "benchmarks" / name / "collection.json").is_file() for name in verdicts)
    assert len(list((out / "benchmarks" / "nbody" / "dumps").iterdir())) == 2  # as a local collect keeps
    assert set(json.loads((out / "loops.json").read_text())["loops"]) == set(verdicts)
    assert not list(out.parent.glob("*.partial-*"))
    assert "cluster worker worker-3 takes no units" in text
    again = tmp_path / "again"  # the loops file of the first run: no calibration, the same loops
    proc = harness.invoke(
        "collect",
        *args[:4],
        "--loops-file",
        str(out / "loops.json"),
        "--out",
        str(again),
        INVOKE_PYSTATS_CLUSTER=cluster.address,
    )
    print(f"collect again with its --loops-file: {time.monotonic() - start:.0f} s in all")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ran = {b["name"]: b["loops"] for b in json.loads((again / "report.json").read_text())["benchmarks"]}
    assert ran == json.loads((out / "loops.json").read_text())["loops"]
    assert not any((again / "benchmarks" / name / "calibrate").exists() for name in ran)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", BASE, "--to", BASE], "the range is empty"),
        (["--from", BRANCH, "--to", BASE], "is not an ancestor of"),
        (["--from", BASE, "--to", BRANCH, "--every", "0"], "--every 0"),
    ],
)
def test_history_bad_input_is_exit_2(harness: Harness, series: list[str], args: list[str], message: str) -> None:
    proc = harness.invoke("history", *args, "--metric", METRIC)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
