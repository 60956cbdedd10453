"""`invoke stats` and `invoke compare`: dump files -> one named collection; two collections -> a diff."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from pystats_harness.build.cache import CacheEntry
from pystats_harness.errors import ConfigError, StatsParseError
from pystats_harness.stats import collection as _collection
from pystats_harness.stats import compare as _compare
from pystats_harness.stats.names import NameTables


@dataclass(frozen=True)
class StatsOutputs:
    collection: _collection.Collection
    files: int
    json_path: Path | None
    markdown_path: Path | None


def dump_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise ConfigError(f"stats directory {directory} does not exist; pass a directory of pystats dump files")
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix == ".txt")
    if not files:
        raise StatsParseError(f"no dump files (*.txt) in {directory}; a run that collected nothing leaves none")
    return files


def names_for(entry: CacheEntry | None) -> NameTables | None:
    if entry is None or not entry.names_path.is_file():
        return None
    return _names(entry.names_path, entry.names_path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _names(path: Path, mtime_ns: int) -> NameTables:
    """Name tables, parsed once per version of names.json (every run of a validation asks)."""
    return NameTables.from_json(json.loads(path.read_text()))


def metadata_for(entry: CacheEntry | None, rev: str | None) -> dict:
    if entry is None:
        return {"revision": rev} if rev else {}
    m = entry.manifest()
    return {
        "revision": rev or m["revision"],
        "sha": m["sha"],
        "python_version": m["python"].get("version"),
        "build_key": entry.key,
        "patches": [p["id"] for p in m["patches"]],
    }


def summary_rows(c: _collection.Collection, limit: int) -> list[tuple[str, float]]:
    rows = [(k, v) for k, v in c.counters.items() if k.startswith("family.") and k.endswith(".execution_count")]
    return sorted(rows, key=lambda kv: -kv[1])[:limit]


def summary_markdown(c: _collection.Collection, limit: int = 30) -> str:
    meta = c.metadata
    lines = [
        f"**pystats** {meta.get('revision', '?')} ({str(meta.get('sha', ''))[:12]}), "
        f"Python {meta.get('python_version', '?')}, {meta.get('nfiles', '?')} files",
        "",
        "| Family | Executions | Hit | Miss | Deopt |",
        "|:---|---:|---:|---:|---:|",
    ]
    for name, value in summary_rows(c, limit):
        fam = name.split(".")[1]
        spec = [c.get(f"family.{fam}.specialization.{k}", 0) for k in ("hit", "miss", "deopt")]
        lines.append(f"| `{fam}` | {value:,.0f} | " + " | ".join(f"{v:,.0f}" for v in spec) + " |")
    return "\n".join(lines) + "\n"


def summary_table(c: _collection.Collection, limit: int = 30) -> Table:
    t = Table(title=f"{c.metadata.get('revision', '?')}: top {limit} opcode families by executions")
    for col, justify in (("Family", "left"), ("Executions", "right"), ("Hit", "right"), ("Miss", "right")):
        t.add_column(col, justify=justify)  # type: ignore[arg-type]
    for name, value in summary_rows(c, limit):
        fam = name.split(".")[1]
        t.add_row(
            fam,
            f"{value:,.0f}",
            f"{c.get(f'family.{fam}.specialization.hit', 0):,.0f}",
            f"{c.get(f'family.{fam}.specialization.miss', 0):,.0f}",
        )
    return t


def make_collection(
    directory: Path, entry: CacheEntry | None, rev: str | None, *, loops: float | None, lenient: bool
) -> _collection.Collection:
    files = dump_files(directory)
    c = _collection.collect(files, names_for(entry), metadata_for(entry, rev), lenient=lenient)
    return _collection.per_loop(c, loops) if loops else c


def write_outputs(c: _collection.Collection, json_out: str | None, markdown_out: str | None) -> None:
    if json_out:
        _collection.save(c, Path(json_out))
    if markdown_out:
        Path(markdown_out).write_text(summary_markdown(c))


def compare_files(base: Path, head: Path, *, threshold: float, family: bool) -> _compare.Comparison:
    for p in (base, head):
        if not p.is_file():
            raise ConfigError(f"collection {p} does not exist; make one with `invoke stats DIR --json OUT`")
    return _compare.compare(_collection.load(base), _collection.load(head), threshold=threshold, family_view=family)
