"""Stats pipeline on real dumps of real builds, cross-checked with the revision's own summarize_stats.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness.build.cache import CacheEntry, lookup
from pystats_harness.infra.runner import RunRequest, run_python
from pystats_harness.stats.summarize import crosscheck_dir
from tests.integration.conftest import Harness

WORK = "import sys, json\nsys._stats_on()\nclass P:\n    def __init__(s, x): s.x = x\nt = sum(P(i).x for i in range(2000))\njson.loads(json.dumps([t] * 50))\nsys._stats_off()\n"


def built(harness: Harness, rev: str, patches: str = "auto") -> CacheEntry:
    out = harness.invoke("build", "--rev", rev, "--patches", patches)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    key = next(line.split()[-1] for line in out.stdout.splitlines() if line.startswith("cache key"))
    entry = lookup(harness.settings.builds_dir, key)
    assert entry is not None
    return entry


@pytest.mark.parametrize("rev", ["v3.13.5", "v3.11.2"])
def test_pipeline_agrees_with_summarize_stats(harness: Harness, rev: str) -> None:
    entry = built(harness, rev)
    assert entry.names_path.is_file()
    ctx = harness.context()
    runs = [run_python(ctx, entry, RunRequest(("-c", WORK), label="xcheck")) for _ in range(2)]
    runs.append(run_python(ctx, entry, RunRequest(("-X", "pystats", "-c", "pass"), label="xcheck")))
    stats_dir = runs[0].run_dir / "all"
    stats_dir.mkdir()
    for r in runs:
        assert r.exit_code == 0, r.stderr
        for f in r.stats_files:
            (stats_dir / f.name).write_bytes(f.read_bytes())
    assert len(list(stats_dir.iterdir())) == 3
    assert crosscheck_dir(ctx, entry, entry.names(), stats_dir) == []


def test_stats_and_compare_tasks(harness: Harness, tmp_path: Path) -> None:
    entry = built(harness, "v3.13.5")
    ctx = harness.context()
    small = run_python(ctx, entry, RunRequest(("-c", WORK.replace("2000", "500")), label="cmp"))
    large = run_python(ctx, entry, RunRequest(("-c", WORK), label="cmp"))
    for name, r in (("small", small), ("large", large)):
        out = harness.invoke(
            "stats",
            str(r.stats_files[0].parent),
            "--rev",
            "v3.13.5",
            "--json",
            str(tmp_path / f"{name}.json"),
            "--markdown",
            str(tmp_path / f"{name}.md"),
        )
        assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "large.json").read_text())
    assert doc["schema"] == "pystats-harness/1" and doc["metadata"]["sha"] == entry.manifest()["sha"]
    assert doc["counters"]["family.LOAD_ATTR.execution_count"] > 2000
    out = harness.invoke(
        "compare",
        str(tmp_path / "small.json"),
        str(tmp_path / "large.json"),
        "--markdown",
        str(tmp_path / "cmp.md"),
        "--json",
        str(tmp_path / "cmp.json"),
    )
    assert out.returncode == 0, out.stderr
    assert "| Counter | Base | Head |" in (tmp_path / "cmp.md").read_text()
    rows = json.loads((tmp_path / "cmp.json").read_text())["rows"]
    assert any(r["name"] == "opcode.STORE_ATTR_INSTANCE_VALUE.execution_count" and r["delta"] == 1500 for r in rows)
    bad = harness.invoke("stats", str(tmp_path), "--rev", "v3.13.5")
    assert bad.returncode == 12 and "no dump files" in bad.stderr
