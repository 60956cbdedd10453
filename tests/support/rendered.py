"""summarize_stats.py's Markdown: rendered by a build's own script in a container, read back as tables."""

from __future__ import annotations

import html
import re
from pathlib import Path

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.infra import engine
from pystats_harness.infra.runner import RunRequest, RunResult, run_python
from pystats_harness.stats.collection import Collection
from pystats_harness.stats.summarize import SCRIPT
from tests.support.invoke_runner import Harness


def html_tables(markdown: str) -> dict[tuple[str, str], list[list[list[str]]]]:
    """The tables of summarize_stats.py 3.13's Markdown (HTML tables), by (## section, ### subsection)."""
    found: dict[tuple[str, str], list[list[list[str]]]] = {}
    h2 = h3 = ""
    for block in re.split(r"(?m)^(#{2,4} .*)$", markdown):
        if block.startswith(("## ", "### ")):
            h2, h3 = (block[3:].strip(), "") if block.startswith("## ") else (h2, block[4:].strip())
            continue
        for table in re.findall(r"<table>(.*?)</table>", block, re.S):
            rows = [
                re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
                for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
            ]
            found.setdefault((h2, h3), []).append(
                [
                    [html.unescape(re.sub(r"<details>.*?</details>", "", cell, flags=re.S)).strip() for cell in row]
                    for row in rows
                ]
            )
    return found


def count(cell: str) -> int:
    return int(cell.replace(",", ""))


def check_rendered(markdown: str, collection: Collection) -> None:
    """Every execution count, specialization and failure-kind row equals the harness's counter, every
    failure kind the harness counted has its row, and the number of data files is the harness's."""
    tables = html_tables(markdown)
    c = collection.counters
    executions = tables[("Execution counts", "")][0][1:]
    assert len(executions) > 20
    assert {row[0]: count(row[1]) for row in executions if count(row[1])} == {
        k.split(".")[1]: v for k, v in c.items() if k.startswith("opcode.") and k.endswith(".execution_count") and v
    }
    assert tables[("Meta stats", "")][0][1] == ["Number of data files", str(collection.metadata["nfiles"])]
    load_attr = dict((row[0], count(row[1])) for row in tables[("Specialization stats", "LOAD_ATTR")][0][1:])
    assert load_attr["hit"] == c["family.LOAD_ATTR.specialization.hit"] > 0
    failure_rows = 0
    for (h2, family), found in tables.items():
        if h2 != "Specialization stats" or not family:
            continue
        for table in found:
            for row in table[1:]:
                if table[0][0] == "Kind":
                    name = f"opcode.{family}.specialization.{row[0]}"
                elif table[0][0] == "Success":
                    name = f"opcode.{family}.specialization.{row[0].lower()}"
                else:
                    name = f"opcode.{family}.specialization.failure_kinds.{row[0].replace(' ', '_')}"
                    failure_rows += 1
                assert c.get(name, 0) == count(row[1]), (name, row)
    counted = [k for k, v in c.items() if k.startswith("opcode.") and ".failure_kinds." in k and v]
    assert failure_rows == len(counted) > 0


def summarize(harness: Harness, entry: CacheEntry, tmp_path: Path, *exports: str) -> RunResult:
    """``entry``'s own summarize_stats.py, run by its interpreter in a container, on the named exports."""
    mounts = (engine.Mount(str(tmp_path / "exports"), "/exports", read_only=True),)
    args = ("-I", SCRIPT, *(f"/exports/{name}" for name in exports))
    return run_python(harness.context(), entry, RunRequest(args, stats_dir=False, mounts=mounts, label="sumjson"))


def rendered(harness: Harness, entry: CacheEntry, tmp_path: Path, *exports: str) -> str:
    r = summarize(harness, entry, tmp_path, *exports)
    assert r.exit_code == 0, r.stderr[-2000:]
    return r.stdout
