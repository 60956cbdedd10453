"""Stats pipeline on real dumps of real builds, cross-checked with the revision's own summarize_stats.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.infra.runner import RunRequest, run_python
from pystats_harness.stats.collection import Collection, load
from pystats_harness.stats.summarize import crosscheck_dir, summarize_output
from pystats_harness.stats.summarize_json import METADATA_KEY
from tests.support.builds import built
from tests.support.history import mirror_real_history, needs_real_history
from tests.support.invoke_runner import Harness
from tests.support.rendered import check_rendered, count, html_tables, rendered, summarize

#: Failure kinds of many families: an overriding descriptor (function.__name__) and int + float (3.11.2:
#: kind 8, which the 3.13 script takes for a generic kind), properties, calls of classes (3.11: PRECALL),
#: loops over generators and dicts (3.11: FOR_ITER_* where the 3.13 script looks for ITER_*).
KINDS = """
import sys
class Over:
    def __get__(self, obj, owner): return 1
    def __set__(self, obj, value): pass
class Box:
    over = Over()
    def __init__(self, w): self.w = w
    @property
    def area(self): return self.w * self.w
def gen(n):
    yield from range(n)
sys._stats_on()
total = 0
for i in range(300):
    b = Box(i)
    b.over = i
    total += b.over + b.area + sum(gen(3)) + len(str(i)) + sum(v for _, v in {"a": i}.items())
    total += len(gen.__name__) + (i + 0.5)
    for _, v in {"a": i}.items():
        total += v
sys._stats_off()
"""
WORK = "import sys, json\nsys._stats_on()\nclass P:\n    def __init__(s, x): s.x = x\nt = sum(P(i).x for i in range(2000))\njson.loads(json.dumps([t] * 50))\nsys._stats_off()\n"


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


def exported(harness: Harness, rev: str, tmp_path: Path) -> tuple[CacheEntry, Collection, Path]:
    """Run KINDS on ``rev``'s build; `invoke stats --json --summarize-json` of its dump directory into
    ``tmp_path`` (the collection) and ``tmp_path/exports/<rev>.json`` (the export)."""
    entry = built(harness, rev)
    r = run_python(harness.context(), entry, RunRequest(("-c", KINDS), label="sumjson"))
    assert r.exit_code == 0 and len(r.stats_files) == 1, r.stderr
    exports = tmp_path / "exports"
    exports.mkdir(mode=0o755, exist_ok=True)
    exports.chmod(0o755)  # read by the container's user nobody
    stats_dir, out, collection = r.stats_files[0].parent, exports / f"{rev}.json", tmp_path / f"{rev}.collection.json"
    done = harness.invoke(
        "stats", str(stats_dir), "--rev", rev, "--json", str(collection), "--summarize-json", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert f"summarize_stats JSON: {out}" in done.stdout
    doc = json.loads(out.read_text())
    assert doc["__nfiles__"] == 1 and doc[METADATA_KEY]["sha"] == entry.manifest()["sha"]
    return entry, load(collection), stats_dir


def check_compared(markdown: str, base: Collection, head: Collection) -> None:
    """summarize_stats.py base.json head.json: execution counts side by side, by name."""
    compared = html_tables(markdown)
    rows = {row[0]: row for row in compared[("Execution counts", "")][0]}
    assert rows["Name"] == ["Name", "Base Count", "Head Count", "Change"]
    counts = [c.counters["opcode.LOAD_ATTR.execution_count"] for c in (base, head)]
    assert [count(rows["LOAD_ATTR"][1]), count(rows["LOAD_ATTR"][2])] == counts
    assert compared[("Meta stats", "")][0][1][:3] == ["Number of data files", "1", "1"]


def test_summarize_json_renders_with_the_313_script(harness: Harness, tmp_path: Path) -> None:
    """`invoke stats --summarize-json` of a 3.11.2 and a 3.13.5 run; 3.13.5's summarize_stats.py (run by
    its interpreter in a container) renders both with the harness's numbers, and compares them."""
    old, old_collection, _ = exported(harness, "v3.11.2", tmp_path)
    new, new_collection, stats_dir = exported(harness, "v3.13.5", tmp_path)
    own = json.loads(summarize_output(harness.context(), new, stats_dir))  # its --json-output of the same dumps
    doc = json.loads((tmp_path / "exports" / "v3.13.5.json").read_text())
    assert {k: v for k, v in doc.items() if k != METADATA_KEY} == own
    check_rendered(rendered(harness, new, tmp_path, "v3.11.2.json"), old_collection)
    check_rendered(rendered(harness, new, tmp_path, "v3.13.5.json"), new_collection)
    check_compared(rendered(harness, new, tmp_path, "v3.11.2.json", "v3.13.5.json"), old_collection, new_collection)
    own = summarize(harness, old, tmp_path, "v3.11.2.json")  # 3.11's ignores its arguments, reads /tmp/py_stats
    assert own.exit_code != 0 and "FileNotFoundError" in own.stderr and "/tmp/py_stats" in own.stderr


@needs_real_history
def test_summarize_json_of_a_312_run(harness: Harness, tmp_path: Path) -> None:
    """3.12.0's numeric dumps, named: 3.13.5's script renders and compares them; 3.12.0's own script
    cannot read named keys (it int()s the opcode key), as docs/stats.md says."""
    mirror_real_history(harness)
    old, old_collection, _ = exported(harness, "v3.12.0", tmp_path)
    new, new_collection, _ = exported(harness, "v3.13.5", tmp_path)
    assert json.loads((tmp_path / "exports" / "v3.12.0.json").read_text())[METADATA_KEY]["opcode_keys"].startswith(
        "numbers"
    )
    check_rendered(rendered(harness, new, tmp_path, "v3.12.0.json"), old_collection)
    check_compared(rendered(harness, new, tmp_path, "v3.12.0.json", "v3.13.5.json"), old_collection, new_collection)
    own = summarize(harness, old, tmp_path, "v3.12.0.json")
    assert own.exit_code != 0 and "ValueError: invalid literal for int()" in own.stderr
