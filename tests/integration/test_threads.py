"""Counters under threads, on real builds: the threaded canary exact on v3.13.5's default build, counts
lost on its free-threaded build (``--config freethreading``: the one extra cold build of this file), and
``invoke validate`` failing that build with its own exit code and one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pystats_harness.builder.cache import CacheEntry, lookup
from pystats_harness.measure import threads
from pystats_harness.measure.suiteconfig import ThreadCanary
from tests.support.builds import built, cache_key
from tests.support.invoke_runner import Harness

#: Smaller than configs/suite.toml's (CI's time): still T = 1/2/4/8, each thread long enough to overlap.
PLAN = ThreadCanary(kernel="calls", n=20000, repeats=3, thread_counts=(1, 2, 4, 8))


@pytest.fixture(scope="module")
def freethreading(harness: Harness) -> CacheEntry:
    out = harness.invoke("build", "--rev", "v3.13.5", "--config", "freethreading")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    entry = lookup(harness.settings.builds_dir, cache_key(out.stdout.splitlines()))
    assert entry is not None and entry.manifest()["configuration"] == "freethreading"
    return entry


def _verdict(harness: Harness, entry: CacheEntry) -> threads.ThreadVerdict:
    return threads.held(harness.context(), entry, PLAN)


def test_the_default_build_counts_every_threads_executions_exactly(harness: Harness) -> None:
    verdict = _verdict(harness, built(harness, "v3.13.5"))
    assert verdict.exact, verdict.to_dict()["mismatches"][:5]
    assert {c.threads for c in verdict.counted} == {1, 2, 4, 8}
    assert all(c.share == 1 for c in verdict.counted)


def test_the_free_threaded_build_loses_counts(harness: Harness, freethreading: CacheEntry) -> None:
    verdict = _verdict(harness, freethreading)
    assert not verdict.exact and not verdict.cannot
    worst = verdict.worst()
    assert worst is not None and worst.share < 1 and worst.threads > 1, verdict.line()
    assert all(c.share == 1 for c in verdict.counted if c.threads == 1)  # one thread alone is exact


def test_validate_fails_the_free_threaded_build_with_exit_30(
    harness: Harness, freethreading: CacheEntry, tmp_path: Path
) -> None:
    out = harness.invoke(
        "validate", "--rev", "v3.13.5", "--config", "freethreading", "--workloads", "nbody", "--out", str(tmp_path)
    )
    assert out.returncode == 30, out.stdout[-3000:] + out.stderr[-3000:]
    line = out.stderr.strip().splitlines()[-1]
    assert re.search(r"threads: \w+ counted \d+\.\d% of its executions with \d threads; worst of 5 runs", line), line
    report = json.loads((tmp_path / "validation.json").read_text())
    step = next(s for s in report["steps"] if s["step"] == "threads")
    assert step["status"] == "fail"
    assert [f["threads"] for f in step["findings"] if "by_family" in f] == [1, 2, 4, 8]
    assert "| threads | fail |" in (tmp_path / "validation.md").read_text()
