"""Development commits of the real history (PYSTATS_CPYTHON_GIT): each revision's own summarize_stats.py
reads the harness's export of its build's dumps (a 3.12 and a 3.13 development commit and both
releases), a base of the neighbouring build included (ea72c6fe3b renumbered the opcodes when it added
BINARY_SUBSCR_STR_INT); and a 3.13 development commit's benchmark sites, compiled requirements
included, install with the tools of its time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.cli.common import resolve
from pystats_harness.diff.work import render_exports
from pystats_harness.pyperformance.sites import SiteReady, prepare_site
from tests.support.builds import built
from tests.support.history import HISTORY_MARKS, mirror_real_history, needs_real_history
from tests.support.invoke_runner import Harness
from tests.support.rendered import html_tables

pytestmark = pytest.mark.integration

#: str[int] subscripts (BINARY_SUBSCR_STR_INT from ea72c6fe3b on), dict subscripts, calls and a collection.
WORKLOAD = """
import gc, sys
def f(x):
    return x + 1
sys._stats_on()
s = "abcdef" * 10
t = 0
for i in range(2000):
    t += ord(s[i % 60])
    d = {"a": i}
    t = f(t + d["a"])
gc.collect()
sys._stats_off()
"""


def export(harness: Harness, tmp_path: Path, rev: str) -> bytes:
    """The harness's summarize_stats export of the workload's dumps on ``rev``'s build."""
    script = tmp_path / rev.replace("~", "_") / "work.py"
    script.parent.mkdir(parents=True)
    script.write_text(WORKLOAD)
    ran = harness.invoke("run", "--rev", rev, "--", str(script))
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    found = re.search(r"invoke stats (\S+)", ran.stdout + ran.stderr)
    assert found is not None, ran.stdout[-2000:] + ran.stderr[-2000:]
    out = script.parent / "export.json"
    stats = harness.invoke("stats", found[1], "--rev", rev, "--summarize-json", str(out))
    assert stats.returncode == 0, stats.stderr[-2000:]
    return out.read_bytes()


def execution_counts(markdown: str) -> dict[str, list[str]]:
    """The rows of the Execution counts table, name -> its cells: HTML tables (3.13's script) or
    Markdown ones (older scripts)."""
    tables = html_tables(markdown).get(("Execution counts", ""))
    if tables:
        return {row[0]: row[1:] for row in tables[0] if row}
    section = markdown[markdown.index("Execution counts") :]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 2 and cells[0].isupper():
            rows.setdefault(cells[0], cells[1:])
    return rows


@pytest.mark.parametrize(
    "rev",
    [
        pytest.param("fb8739f0b6", marks=HISTORY_MARKS, id="3.12 development (May 2023): numbered opcodes"),
        pytest.param("ea72c6fe3b", marks=HISTORY_MARKS, id="3.13 development (Aug 2023): numbered, GC stats"),
        pytest.param("v3.12.0", marks=HISTORY_MARKS, id="3.12.0"),
        pytest.param("v3.13.5", id="3.13.5"),
    ],
)
def test_the_revisions_own_script_reads_the_export_of_its_build(harness: Harness, tmp_path: Path, rev: str) -> None:
    if rev != "v3.13.5":
        mirror_real_history(harness)
    entry: CacheEntry = built(harness, rev)
    doc = export(harness, tmp_path, rev)
    ctx = harness.context()
    rendered = render_exports(ctx, entry, resolve(ctx, rev), doc, doc)
    assert rendered.markdown is not None, rendered.note
    counted = json.loads(doc)["opcode[BINARY_SUBSCR_DICT].execution_count"]
    rows = execution_counts(rendered.markdown)
    assert rows["BINARY_SUBSCR_DICT"][:2] == [f"{counted:,}", f"{counted:,}"], rows.get("BINARY_SUBSCR_DICT")


@needs_real_history
def test_a_base_of_the_build_before_a_renumbering_is_read_by_name(harness: Harness, tmp_path: Path) -> None:
    """ea72c6fe3b's script reads numbers: the base's (ea72c6fe3b~1) are given the head's by name."""
    mirror_real_history(harness)
    base_entry, head_entry = built(harness, "ea72c6fe3b~1"), built(harness, "ea72c6fe3b")
    base_names = json.loads(base_entry.names_path.read_text())["opnames"]
    head_names = json.loads(head_entry.names_path.read_text())["opnames"]
    moved = [n for n in base_names if n in head_names and base_names.index(n) != head_names.index(n)]
    assert moved and "BINARY_SUBSCR_STR_INT" not in base_names  # renumbered: some opcodes moved
    base, head = export(harness, tmp_path, "ea72c6fe3b~1"), export(harness, tmp_path, "ea72c6fe3b")
    ctx = harness.context()
    rendered = render_exports(ctx, head_entry, resolve(ctx, "ea72c6fe3b"), base, head)
    assert rendered.markdown is not None, rendered.note
    rows = execution_counts(rendered.markdown)
    dict_subscripts = json.loads(base)["opcode[BINARY_SUBSCR_DICT].execution_count"]
    assert rows["BINARY_SUBSCR_DICT"][:2] == [f"{dict_subscripts:,}"] * 2  # the same count, by name, both sides
    assert rows["BINARY_SUBSCR_STR_INT"][0] == "0" and rows["BINARY_SUBSCR_STR_INT"][1] != "0"  # new in the head
    counts = [json.loads(doc) for doc in (base, head)]
    key = "opcode[{}].execution_count"
    shown = [n for n in moved if all(key.format(n) in c for c in counts)]
    assert shown, moved  # the workload ran an opcode whose number moved: it is shown under its name on both sides
    for name in shown:
        assert rows[name][:2] == [f"{c[key.format(name)]:,}" for c in counts], (name, rows[name])


@needs_real_history
@pytest.mark.usefixtures("benchmark_wheelhouse")
def test_sites_at_a_313_development_commit_install_compiled_requirements(harness: Harness) -> None:
    """ea72c6fe3b (3.13.0a0, no pkgutil.ImpImporter, no warnings.deprecated): the tools of 2023."""
    mirror_real_history(harness)
    entry = built(harness, "ea72c6fe3b")
    ctx = harness.context()
    for bench, compiled in (("bm_yaml", "pyyaml"), ("bm_mako", "markupsafe"), ("bm_tomli_loads", None)):
        site = prepare_site(ctx, entry, bench)
        assert isinstance(site, SiteReady), f"{bench}: {site}"
        outcome = json.loads((site.path.parent / "outcome.json").read_text())
        assert outcome["installer"] == "2023"
        if compiled:
            assert any(w.startswith(compiled) and "cp313" in w for w in outcome["built"]), outcome["built"]
