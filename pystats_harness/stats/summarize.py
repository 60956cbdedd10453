"""Cross-check the pipeline against the revision's own Tools/scripts/summarize_stats.py.

The script runs with that build's interpreter, inside that revision's (copied) source tree, in a
fresh container, on the same dump files: 3.12+ via ``--json-output``; 3.11 (no options, fixed
``/tmp/py_stats``) via its Markdown output with the dumps mounted read-only at /tmp/py_stats.
:func:`crosscheck` compares its execution counts and specialization totals with a collection.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.errors import ConfigError, RunFailed, StatsParseError
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.runner import SOURCE_IN_CONTAINER, Interpreter, RunRequest, run_python
from pystats_harness.stats.collection import Collection, Number, collect_dir
from pystats_harness.stats.keys import classify
from pystats_harness.stats.names import NameTables

SCRIPT = f"{SOURCE_IN_CONTAINER}/Tools/scripts/summarize_stats.py"


@dataclass(frozen=True)
class Mismatch:
    name: str
    ours: Number | None
    theirs: Number | None


def _from_summarize_json(doc: Mapping[str, Any], names: NameTables | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, value in doc.items():
        if key == "__nfiles__":
            out["__nfiles__"] = int(value)
            continue
        if not key.startswith("opcode[") or not isinstance(value, int):
            continue
        stat = classify(key.strip(), value)
        if stat.kind not in ("opcode", "specialization"):
            continue
        op = stat.parts[0]
        if op.isdigit():
            if names is None:
                raise ConfigError("summarize_stats JSON has opcode numbers: pass the build's names.json")
            op = names.opname(op)
        field = stat.parts[1] if stat.kind == "opcode" else f"specialization.{stat.parts[1]}"
        out[f"opcode.{op}.{field}"] = out.get(f"opcode.{op}.{field}", 0) + value
    return out


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _int(text: str) -> int | None:
    text = text.replace(",", "")
    return int(text) if text.isdigit() else None


def _from_summarize_markdown(text: str) -> dict[str, int]:
    """Execution counts and specialization tables of summarize_stats.py's Markdown (3.11 layout)."""
    out: dict[str, int] = {}
    h2 = h3 = ""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("## "):
            h2, h3 = line[3:].strip(), ""
        elif line.startswith("### "):
            h3 = line[4:].strip()
        if (
            not line.startswith("|")
            or line.startswith("|---")
            or (i + 1 < len(lines) and lines[i + 1].startswith("|---"))
        ):
            continue
        cells = _cells(line)
        if len(cells) < 2 or (value := _int(cells[1])) is None:
            continue
        if h2 == "Execution counts":
            out[f"opcode.{cells[0]}.execution_count"] = value
        elif h2 == "Specialization stats" and h3:
            label = cells[0].removeprefix("specialization.")
            field = {
                "unquickened": "execution_count",
                "Success": "specialization.success",
                "Failure": "specialization.failure",
            }.get(label)
            if field is None and label in ("hit", "miss", "deferred", "deopt"):
                field = f"specialization.{label}"
            if field:
                out[f"opcode.{h3}.{field}"] = value
    return out


def crosscheck(
    collection: Collection, summarize_output: str | Mapping[str, Any], names: NameTables | None = None
) -> list[Mismatch]:
    """Compare execution counts and specialization totals with summarize_stats.py's output for the
    same files: its ``--json-output`` document (3.12+; numeric 3.12 keys need ``names``) or its
    Markdown (3.11).  Returns the counters that differ (empty list: they agree)."""
    doc: Any = summarize_output
    if isinstance(doc, str) and doc.lstrip().startswith("{"):
        try:
            doc = json.loads(doc)
        except json.JSONDecodeError as exc:
            raise StatsParseError(f"summarize_stats JSON is invalid at line {exc.lineno}: {exc.msg}") from exc
    theirs = _from_summarize_json(doc, names) if isinstance(doc, Mapping) else _from_summarize_markdown(doc)
    if not theirs:
        raise StatsParseError(
            "no execution counts found in the summarize_stats output: pass its Markdown "
            "(3.11) or its --json-output document (3.12+; its Markdown uses HTML tables)"
        )
    mismatches: list[Mismatch] = []
    nfiles = theirs.pop("__nfiles__", None)
    if nfiles is not None and nfiles != collection.metadata.get("nfiles"):
        mismatches.append(Mismatch("__nfiles__", collection.metadata.get("nfiles"), nfiles))
    for name in sorted(theirs):
        if collection.counters.get(name, 0) != theirs[name]:
            mismatches.append(Mismatch(name, collection.counters.get(name), theirs[name]))
    for name, value in sorted(collection.counters.items()):
        if name.startswith("opcode.") and name.endswith(".execution_count") and value and name not in theirs:
            mismatches.append(Mismatch(name, value, None))
    return mismatches


def summarize_output(ctx: Context, interpreter: Interpreter, stats_dir: Path) -> str:
    """stdout (3.11 Markdown) or the --json-output document (3.12+) of the revision's own script."""
    script = (interpreter.source_dir / "Tools/scripts/summarize_stats.py").read_text(errors="replace")
    if "--json-output" in script:
        mounts = (engine.Mount(str(stats_dir), "/dumps", read_only=True),)
        args = ("-I", SCRIPT, "/dumps", "--json-output", "/tmp/py_stats/summary.json")
        r = run_python(ctx, interpreter, RunRequest(args, mounts=mounts, label="summarize"))
        produced = [p for p in r.stats_files if p.name == "summary.json"]
        if r.exit_code != 0 or not produced:
            raise RunFailed(f"summarize_stats.py failed (exit {r.exit_code}): {r.stderr.strip()[-300:]}")
        return produced[0].read_text()
    mounts = (engine.Mount(str(stats_dir), "/tmp/py_stats", read_only=True),)
    r = run_python(ctx, interpreter, RunRequest(("-I", SCRIPT), stats_dir=False, mounts=mounts, label="summarize"))
    if r.exit_code != 0:
        raise RunFailed(f"summarize_stats.py failed (exit {r.exit_code}): {r.stderr.strip()[-300:]}")
    return r.stdout


def crosscheck_dir(ctx: Context, interpreter: Interpreter, names: NameTables | None, stats_dir: Path) -> list[Mismatch]:
    """Empty when our execution counts and specialization totals equal the script's."""
    ours = collect_dir(stats_dir, names, {})
    return crosscheck(ours, summarize_output(ctx, interpreter, stats_dir), names)
