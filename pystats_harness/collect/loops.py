"""Fixed loops per benchmark, like pyperformance's ``--same-loops``: recorded in every collect output
(``loops.json``) and reusable, so that base and head run the same loops.

Reads the harness's own file (schema ``pystats-harness-loops/1``) and pyperf/pyperformance result
JSON (``benchmarks[].metadata.name`` / ``loops``, as ``--same-loops`` does). Benchmarks that were
selected but did not run (skipped, failed) are listed under ``not_run``: a collect given the file
calibrates them (loops 0 here) instead of refusing the file as one made for other benchmarks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pystats_harness.errors import ConfigError
from pystats_harness.infra.fs import write_json_atomic

SCHEMA = "pystats-harness-loops/1"


def _from_pyperf(doc: Mapping[str, Any]) -> dict[str, int]:
    common = doc.get("metadata", {})
    out = {}
    for bench in doc.get("benchmarks", []):
        meta = {**common, **bench.get("metadata", {})}
        if "name" in meta and "loops" in meta:
            out[str(meta["name"])] = int(meta["loops"])
    return out


def read(path: Path) -> dict[str, int]:
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ConfigError(
            f"cannot read loops file {path}: {exc.strerror}; pass a loops.json of an earlier collect"
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"loops file {path} is not JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(doc, Mapping) and doc.get("schema") == SCHEMA:
        loops = {str(k): int(v) for k, v in doc.get("loops", {}).items()}
        bad_not_run = [n for n in doc.get("not_run", []) if n in loops]
        if bad_not_run:
            raise ConfigError(f"loops file {path} lists {', '.join(bad_not_run)} both with loops and as not run")
        loops.update({str(n): 0 for n in doc.get("not_run", [])})
    elif isinstance(doc, Mapping) and "benchmarks" in doc:
        loops = _from_pyperf(doc)
    else:
        raise ConfigError(f"loops file {path} is neither a collect loops.json ({SCHEMA}) nor a pyperf result file")
    bad = sorted(k for k, v in loops.items() if v < 0 or (v == 0 and k not in doc.get("not_run", [])))
    if bad:
        raise ConfigError(f"loops file {path} has loops < 1 for {', '.join(bad)}")
    return loops


def check_covers(loops: Mapping[str, int], wanted: Sequence[str], path: Path) -> None:
    """One line naming the mismatch when the loops file lacks loops for a selected benchmark."""
    missing = [name for name in wanted if name not in loops]
    if missing:
        has = ", ".join(sorted(loops)[:12]) + (" …" if len(loops) > 12 else "")
        raise ConfigError(
            f"loops file {path} has no loops for {', '.join(missing)} (it was made for: {has or 'nothing'}); "
            "select the benchmarks it was made for, or omit --loops-file to calibrate"
        )


def write(path: Path, loops: Mapping[str, int], pyperformance: str, not_run: Sequence[str] = ()) -> None:
    doc = {"schema": SCHEMA, "pyperformance": pyperformance, "loops": dict(sorted(loops.items()))}
    write_json_atomic(path, {**doc, "not_run": sorted(set(not_run) - set(loops))})
