"""The cluster layer without an engine: an unreachable scheduler, the one dask importer, cluster-local's input."""

from __future__ import annotations

import ast
import socket
import time
from pathlib import Path

import pytest

from pystats_harness.cluster.client import Cluster
from pystats_harness.cluster.errors import ClusterUnavailable, NoUsableWorker
from tests.support.invoke_runner import invoke_in

ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_scheduler_that_does_not_answer_is_exit_18_naming_the_address() -> None:
    address = f"tcp://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    with pytest.raises(ClusterUnavailable) as info, Cluster[int, int](address, timeout=2):
        pytest.fail("connected to nothing")
    assert info.value.exit_code == 18 and info.value.address == address
    assert address in str(info.value) and "nothing was started" in str(info.value)
    assert len(str(info.value).splitlines()) == 1 and time.monotonic() - start < 30


def test_no_usable_worker_names_each_worker_and_reason() -> None:
    error = NoUsableWorker("tcp://h:1", {"w2": "no usable Docker engine: gone", "w1": "started without --resources"})
    assert error.exit_code == 18 and str(error).index("w1:") < str(error).index("w2:")


def test_only_one_module_imports_dask() -> None:
    importers = set()
    for path in (ROOT / "pystats_harness").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[0] in ("dask", "distributed") for n in names):
                importers.add(path.relative_to(ROOT).as_posix())
    assert importers == {"pystats_harness/cluster/client.py"}


@pytest.mark.parametrize(("workers", "message"), [("0", "at least one worker"), ("two", "is not a number")])
def test_cluster_local_refuses_bad_worker_counts(tmp_path: Path, workers: str, message: str) -> None:
    proc = invoke_in(tmp_path, "cluster-local", "--workers", workers)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
