"""ccache_remote: the setting, the build container it makes, the reachability check (a real socket)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from pystats_harness.builder import remote
from pystats_harness.builder.execute import Workspace, container_spec
from pystats_harness.builder.lanes import Lane
from pystats_harness.builder.script import ccache_delta
from pystats_harness.config import load_settings, settings_from_environment
from pystats_harness.console import Reporter
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from tests.support.build_plan import plan


@pytest.mark.parametrize("value", ["redis://127.0.0.1:6379", "redis://cache.example:7000/2", ""])
def test_redis_addresses_are_accepted(value: str) -> None:
    assert load_settings({"ccache_remote": value}).ccache_remote == value


@pytest.mark.parametrize("value", ["127.0.0.1:6379", "redis://host", "http://h:1", "redis://h:1 --x"])
def test_other_addresses_are_refused_in_one_line(value: str) -> None:
    with pytest.raises(ConfigError, match=r"pystats\.ccache_remote=.*redis://HOST:PORT"):
        load_settings({"ccache_remote": value})


def test_cluster_setting_takes_host_port_and_refuses_garbage() -> None:
    assert load_settings({"cluster": "sched:8786"}).cluster == "tcp://sched:8786"
    assert load_settings({}).cluster == ""
    with pytest.raises(ConfigError, match=r"pystats\.cluster=.*tcp://HOST:PORT"):
        load_settings({"cluster": "tcp://nohost"})


def test_a_worker_reads_its_settings_from_the_environment(tmp_path: Path) -> None:
    env = {"INVOKE_PYSTATS_CACHE_DIR": str(tmp_path), "INVOKE_PYSTATS_MAKE_JOBS": "3", "INVOKE_OTHER": "x"}
    settings = settings_from_environment(env)
    assert settings.cache_dir == tmp_path.resolve() and settings.make_jobs == 3


def _spec(tmp_path: Path, shared: remote.Remote):  # type: ignore[no-untyped-def]
    ctx = Context(load_settings({"cache_dir": str(tmp_path / "cache")}))
    lane = Lane(tmp_path / "lane", reuse=False, reason="test", state_path=None)
    return container_spec(ctx, plan(), Workspace(tmp_path / "wt", tmp_path / "s", lane, tmp_path / "c", shared))


def test_a_build_with_a_remote_gets_it_and_the_host_network(tmp_path: Path) -> None:
    spec = _spec(tmp_path, remote.Remote("redis://127.0.0.1:6400"))
    assert spec.env["CCACHE_REMOTE_STORAGE"].startswith("redis://127.0.0.1:6400|")
    assert spec.host_network and not spec.network
    local = _spec(tmp_path, remote.Remote(""))
    assert "CCACHE_REMOTE_STORAGE" not in local.env and not local.host_network


def _one_shot_server(reply: bytes) -> tuple[int, threading.Thread]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(64)
            conn.sendall(reply)
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server.getsockname()[1], thread


def test_a_remote_that_answers_ping_is_used() -> None:
    port, thread = _one_shot_server(b"+PONG\r\n")
    assert remote.resolve(f"redis://127.0.0.1:{port}", Reporter()).url == f"redis://127.0.0.1:{port}"
    thread.join(5)


def test_an_unreachable_remote_is_dropped_with_one_warning(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    shared = remote.resolve(f"redis://127.0.0.1:{port}", Reporter())
    assert shared.url == "" and "cannot connect" in shared.unreachable
    err = capsys.readouterr()
    lines = [line for line in (err.out + err.err).splitlines() if "ccache_remote" in line]
    assert len(lines) == 1 and "local ccache only" in lines[0]


def test_a_server_that_is_not_redis_is_not_used() -> None:
    port, thread = _one_shot_server(b"HTTP/1.1 400\r\n")
    assert "did not answer PING" in remote.resolve(f"redis://127.0.0.1:{port}", Reporter()).unreachable
    thread.join(5)


def test_ccache_delta_counts_remote_hits() -> None:
    before = "direct_cache_hit=1 cache_miss=5 remote_storage_hit=0 remote_storage_error=0"
    after = "direct_cache_hit=11 cache_miss=5 remote_storage_hit=9 remote_storage_error=1"
    assert ccache_delta(before, after) == {"hits": 10, "misses": 0, "remote_hits": 9, "remote_errors": 1}
