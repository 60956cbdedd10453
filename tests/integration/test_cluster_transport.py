"""The transport under faults, on real Dask processes (a scheduler and ``dask worker`` processes on
127.0.0.1) without a Docker engine: units whose functions sleep, answer Then, Unfit or Fault, and send
progress events. Builds are the integration tests' (tests/integration/test_cluster_faults.py). Needs no Docker
engine, but real processes: an integration test (it takes 40-70 s)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pystats_harness.cluster.client import Cluster, Fault, Then, Unfit, progress, then, worker_name
from pystats_harness.cluster.errors import NoUsableWorker, WorkerFault
from pystats_harness.cluster.local import LocalCluster, local_cluster
from pystats_harness.config import load_settings

WAIT = 4.0  # seconds a client waits for a fit worker here


def fit() -> str:
    """Every worker of these tests is fit unless its environment says otherwise."""
    return os.environ.get("TEST_UNFIT", "")


def slow(seconds: float) -> str:
    time.sleep(seconds)
    return worker_name()


def built(n: int) -> Then:
    """A build task that goes on in two parts on its worker; each part sends one event."""
    return then([(part, (n, 0)), (part, (n, 1))], join)


def part(arg: tuple[int, int]) -> tuple[int, int, str]:
    progress()({"part": list(arg)})
    return (*arg, worker_name())


def join(results: list[Any]) -> list[Any]:
    return results


def unfit_on_worker_1(n: int) -> str | Unfit:
    return Unfit("worker-1", "planted") if worker_name() == "worker-1" else worker_name()


def broken(n: int) -> Fault:
    return Fault(worker_name(), "KeyError: 'x'", "/cache/cluster-failures/t.txt")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    settings = load_settings({"cache_dir": str(tmp_path / "cache")})
    with local_cluster(settings, tmp_path / "cluster", 2) as local:
        with Cluster[object, object](local.address, min_workers=2, fitness=fit):
            pass
        yield local


def test_parts_run_on_the_worker_that_built_and_their_events_arrive(cluster: LocalCluster) -> None:
    events: list[dict[str, Any]] = []
    with Cluster[int, list[Any]](cluster.address, fitness=fit, wait=WAIT) as client:
        results = client.run_units(built, [1, 2, 3], on_event=events.append)
    assert [[(n, i) for n, i, _ in r] for r in results] == [[(n, 0), (n, 1)] for n in (1, 2, 3)]
    assert all(len({w for _, _, w in r}) == 1 for r in results)  # both parts where the build ran
    assert sorted(tuple(e["part"]) for e in events) == [(n, i) for n in (1, 2, 3) for i in (0, 1)]
    assert {e["name"] for e in events} <= {"worker-1", "worker-2"}


def test_an_unfit_worker_takes_no_more_units(cluster: LocalCluster) -> None:
    with Cluster[int, str](cluster.address, fitness=fit, wait=WAIT) as client:
        results = client.run_units(unfit_on_worker_1, list(range(4)))
        assert results == ["worker-2"] * 4 and client.workers.unfit == {"worker-1": "planted"}


def test_a_fault_ends_the_run_naming_worker_error_and_traceback(cluster: LocalCluster) -> None:
    with Cluster[int, str](cluster.address, fitness=fit, wait=WAIT) as client, pytest.raises(WorkerFault) as info:
        client.run_units(broken, [1])
    assert info.value.exit_code == 1 and "KeyError: 'x'" in str(info.value)
    assert "/cache/cluster-failures/t.txt" in str(info.value) and "worker-" in str(info.value)


def test_every_worker_killed_is_a_bounded_wait_then_exit_18(cluster: LocalCluster) -> None:
    with Cluster[float, str](cluster.address, fitness=fit, wait=WAIT) as client:
        threading.Timer(1.0, lambda: [cluster.kill_worker(n) for n in list(cluster.workers)]).start()
        start = time.monotonic()
        with pytest.raises(NoUsableWorker) as info:
            client.run_units(slow, [30.0, 30.0])
    assert info.value.exit_code == 18 and time.monotonic() - start < WAIT + 15
    assert "worker-1: left the cluster" in str(info.value) and "worker-2: left the cluster" in str(info.value)


def test_a_worker_added_mid_run_takes_units(cluster: LocalCluster, tmp_path: Path) -> None:
    settings = load_settings({"cache_dir": str(tmp_path / "cache")})
    with Cluster[float, str](cluster.address, fitness=fit, wait=WAIT) as client:
        threading.Timer(0.5, lambda: cluster.add_worker(settings, "worker-3")).start()
        results = client.run_units(slow, [3.0] * 6)
    assert "worker-3" in results, results


def test_the_scheduler_killed_is_exit_18_at_once(cluster: LocalCluster) -> None:
    with Cluster[float, str](cluster.address, fitness=fit, wait=60) as client:
        threading.Timer(1.0, cluster.kill_scheduler).start()
        start = time.monotonic()
        with pytest.raises(Exception) as info:
            client.run_units(slow, [30.0, 30.0])
    assert getattr(info.value, "exit_code", None) == 18, info.value
    assert "stopped answering" in str(info.value) and time.monotonic() - start < 30
