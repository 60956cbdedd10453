"""Tier-2 dump text as print_optimization_stats() prints it, and CPython files from the local mirror.

``render`` writes the lines of one generation (``pystats_harness.stats.tier2.lines_of``, whose format
strings test_tier2.py checks against each revision's Python/specialize.c) with the given counts, in
the C code's order: scalars, then per histogram its _Py_UOP_HIST_SIZE buckets, then per uop its
execution count and miss lines (non-zero only), unsupported opcodes, uop pairs, error_in_opcode.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pystats_harness.config import settings_from_environment
from pystats_harness.stats.tier2 import HIST_SIZE, lines_of


@dataclass
class Counts:
    scalars: Mapping[str, int] = field(default_factory=dict)
    histograms: Mapping[str, Mapping[int, int]] = field(default_factory=dict)
    uops: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # name -> (execution count, miss)
    unsupported: Mapping[str, int] = field(default_factory=dict)
    pairs: Mapping[tuple[str, str], int] = field(default_factory=dict)
    errors: Mapping[str, int] = field(default_factory=dict)


def render(since: str, counts: Counts) -> str:
    out: list[str] = []
    formats = lines_of(since)
    for fmt in formats:
        if "[" not in fmt:
            out.append(fmt.replace("%u", str(counts.scalars.get(fmt.split(":")[0], 0))))
        elif fmt.endswith("[%u]: %u"):
            name = fmt[: -len("[%u]: %u")]
            hist = counts.histograms.get(name, {})
            out += [f"{name}[{1 << i}]: {hist.get(1 << i, 0)}" for i in range(HIST_SIZE)]
        elif fmt.startswith("uops[") and fmt.endswith(".execution_count : %u"):
            with_miss = "uops[%s].specialization.miss : %u" in formats
            for name, (count, miss) in counts.uops.items():
                out += [f"uops[{name}].execution_count : {count}"] if count else []
                out += [f"uops[{name}].specialization.miss : {miss}"] if miss and with_miss else []
        elif fmt.startswith("unsupported_opcode["):
            out += [f"unsupported_opcode[{name}].count : {n}" for name, n in counts.unsupported.items() if n]
        elif fmt.startswith("uop["):
            out += [f"uop[{a}].pair_count[{b}] : {n}" for (a, b), n in counts.pairs.items() if n]
        elif fmt.startswith("error_in_opcode["):
            out += [f"error_in_opcode[{name}].count : {n}" for name, n in counts.errors.items() if n]
    return "".join(line + "\n" for line in out)


def mirror() -> Path:
    """The CPython mirror (``PYSTATS_CPYTHON_GIT``, else the harness's cache); skips the test if absent."""
    path = Path(os.environ.get("PYSTATS_CPYTHON_GIT") or settings_from_environment(os.environ).mirror_dir)
    if not (path / "HEAD").is_file() and not (path / ".git").exists():
        pytest.skip(f"no CPython mirror at {path} (set PYSTATS_CPYTHON_GIT or run `invoke build` once)")
    return path


def git_show(rev: str, path: str) -> str:
    """``path`` at ``rev`` of the mirror (skips the test if the mirror lacks it)."""
    run = subprocess.run(
        ["git", "-C", str(mirror()), "show", f"{rev}:{path}"], capture_output=True, text=True, check=False
    )
    if run.returncode:
        pytest.skip(f"the CPython mirror has no {rev}:{path} ({run.stderr.strip()[:120]})")
    return run.stdout
