"""Collect speed: the same benchmarks serially (how the existing automated job must run them, one
`/tmp/py_stats` per machine) and with `--jobs 2` (one container each), side by side.

    python bench/collect_speed.py [--rev v3.13.5] [--benchmarks LIST] [--processes 2]

First a calibration collect fixes the loops (its loops.json is reused by both timed runs, so they
do the same work; builds and benchmark requirements are cached by then). Prints the wall time of
both runs, the ratio jobs2/serial (goal <= 0.6 on 2 cores) and the wall time per benchmark of each
run (benchmarks overlap in the parallel run, so its per-benchmark times add up to more than its
wall time). Uses the settings of the default cache (INVOKE_PYSTATS_* apply).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.invoke_runner import run_invoke

DEFAULT = "nbody,richards,float,chaos,go,hexiom,deltablue,fannkuch,spectral_norm,raytrace,json_dumps,unpack_sequence"


def collect(rev: str, benchmarks: str, processes: int, jobs: int, out: Path, loops: Path | None) -> float:
    args = ["collect", "--rev", rev, "--benchmarks", benchmarks, "--jobs", str(jobs), "--processes", str(processes)]
    args += ["--out", str(out), "--no-manual", *(["--loops-file", str(loops)] if loops else [])]
    start = time.perf_counter()
    proc = run_invoke(*args)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 26):
        sys.exit(f"collect --jobs {jobs} failed (exit {proc.returncode}): {proc.stderr.strip()[-600:]}")
    return seconds


def per_benchmark(out: Path) -> dict[str, float]:
    return {b["name"]: b["seconds"] for b in json.loads((out / "report.json").read_text())["benchmarks"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="v3.13.5")
    parser.add_argument("--benchmarks", default=DEFAULT)
    parser.add_argument("--processes", type=int, default=2)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="collect-speed-") as tmp:
        root = Path(tmp)
        collect(a.rev, a.benchmarks, 1, 2, root / "calibrate", None)
        loops = root / "calibrate" / "loops.json"
        serial = collect(a.rev, a.benchmarks, a.processes, 1, root / "serial", loops)
        parallel = collect(a.rev, a.benchmarks, a.processes, 2, root / "jobs2", loops)
        s, p = per_benchmark(root / "serial"), per_benchmark(root / "jobs2")
    table = Table(title=f"collect {a.rev}: {len(s)} benchmarks, --processes {a.processes}, fixed loops, no manual path")
    for column in ("benchmark", "serial s", "--jobs 2 s"):
        table.add_column(column, justify="right" if column != "benchmark" else "left")
    for name in s:
        table.add_row(name, f"{s[name]:.1f}", f"{p.get(name, 0):.1f}")
    table.add_row("[bold]wall time[/]", f"[bold]{serial:.1f}[/]", f"[bold]{parallel:.1f}[/]")
    console = Console()
    console.print(table)
    console.print(f"ratio --jobs 2 / serial: {parallel / serial:.2f} (goal <= 0.6 on 2 cores)")


if __name__ == "__main__":
    main()
