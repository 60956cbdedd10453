"""ccache_remote: a build on a second "host" (its own cache dir and its own empty ccache volume) is a
near-complete ccache hit through a real redis-server on 127.0.0.1; with Redis stopped builds still work."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pystats_harness.infra import engine
from pystats_harness.infra.mirror import Mirror
from tests.support.invoke_runner import Harness
from tests.support.servers import redis_server

pytestmark = pytest.mark.integration


@pytest.fixture
def volumes() -> Iterator[list[str]]:
    names = [f"pystats-harness-test-ccache-{uuid.uuid4().hex[:8]}-{host}" for host in "ab"]
    yield names
    client = engine.connect()
    for name in names:
        with contextlib.suppress(Exception):  # a volume a failed test never created
            client.volumes.get(name).remove(force=True)


def _build(harness: Harness, cache: Path, volume: str, redis_url: str) -> tuple[int, str, dict]:
    cache.mkdir(parents=True, exist_ok=True)
    Mirror(cache / "cpython.git").update(str(harness.settings.mirror_dir))
    env = {"INVOKE_PYSTATS_CACHE_DIR": str(cache), "INVOKE_PYSTATS_CCACHE_VOLUME": volume}
    proc = harness.invoke("build", "--rev", "v3.13.5", INVOKE_PYSTATS_CCACHE_REMOTE=redis_url, **env)
    manifests = list((cache / "builds").glob("*/manifest.json"))
    return proc.returncode, proc.stdout + proc.stderr, json.loads(manifests[0].read_text()) if manifests else {}


def test_second_host_hits_through_redis_and_builds_survive_redis_stopping(
    harness: Harness, tmp_path: Path, volumes: list[str]
) -> None:
    with redis_server(tmp_path) as redis:
        code, out, first = _build(harness, tmp_path / "host-a", volumes[0], redis.url)
        assert code == 0, out[-3000:]
        assert first["ccache"]["misses"] > 100  # cold: host a's volume was empty
        code, out, second = _build(harness, tmp_path / "host-b", volumes[1], redis.url)
        assert code == 0, out[-3000:]
        ccache = second["ccache"]
        rate = ccache["remote_hits"] / max(1, ccache["hits"] + ccache["misses"])
        print(f"\nhost b's build of v3.13.5: {ccache} -> remote hit rate {rate:.1%}")
        assert rate >= 0.9 and ccache["remote_errors"] == 0
        redis.stop()
        code, out, third = _build(harness, tmp_path / "host-c", volumes[1], redis.url)
    assert code == 0, out[-3000:]
    warnings = [line for line in out.splitlines() if "ccache_remote" in line]
    assert len(warnings) == 1 and "unreachable" in warnings[0] and "local ccache only" in warnings[0]
    assert third["ccache"]["hits"] > 100 and third["ccache"].get("remote_hits", 0) == 0
