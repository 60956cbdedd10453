"""How much the counters that validate's leakage and isolation steps do not compare exactly really vary:
object and gc counters and the RESUME misses, between the two paths and between runs, on the suite's
workloads (and the planted leaks, to see that an allowance of that size still catches them).

    python3 bench/leak_variance.py [--rev v3.13.5] [--config default] [--repeats 3] [--save DIR] [--json F]

Each repeat runs what validate runs for leakage (validate/driver.collect_runs: manual at N and 2N and
automated at N, every workload and the null; pyperf --hook pystats with configs/suite.toml's
processes). For every counter of those kinds it prints, over the workloads and repeats:

* ``path``: automated(w) - automated(null) per process against manual(w) - manual(null), as leakage
  compares them: the largest difference, in counts and relative to the larger side;
* ``runs``: the same workload's manual counts in two repeats (what isolation compares: one process
  against another): the largest difference.

Leaky workloads (``leaky``, ``leaky_alloc``) are shown apart: their path difference is the planted leak.
``--save DIR`` keeps the first repeat's raw dumps of ``--save-workloads`` (gzipped, with the build's
names.json and canary table: tests/data/leakage); ``--json F`` every difference.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console
from rich.table import Table

from pystats_harness.builder.cache import lookup
from pystats_harness.config import settings_from_environment
from pystats_harness.infra.context import Context
from pystats_harness.measure.runs import RunPath
from pystats_harness.measure.suiteconfig import kind_of, load_suite
from pystats_harness.validate.driver import canary_table, collect_runs
from pystats_harness.validate.leakage import automated_net, manual_net
from pystats_harness.validate.runs import Runs, counters
from tests.support.builds import cache_key
from tests.support.invoke_runner import run_invoke

LEAKY = ("leaky", "leaky_alloc")
WATCHED = ("objects.*", "gc.*", "opcode.RESUME*.specialization.miss")


def watched(name: str) -> bool:
    return any(fnmatchcase(name, p) for p in WATCHED)


def group(name: str) -> str:
    """gc.<gen>.<what> -> gc.*.<what>; others as they are."""
    parts = name.split(".")
    return f"gc.*.{parts[-1]}" if parts[0] == "gc" else name


def path_differences(runs: Runs, workloads: dict[str, int], suite: Any) -> Iterable[dict[str, Any]]:
    for w, loops in workloads.items():
        a, b = automated_net(runs, w, suite, loops), manual_net(runs, w, suite, loops)
        for name in sorted(set(a.counts) | set(b.counts)):
            if watched(name):
                va, vb = float(a.per_unit(name)), float(b.per_unit(name))
                yield {"workload": w, "counter": name, "a": va, "b": vb}


def run_differences(first: Runs, other: Runs, workloads: dict[str, int]) -> Iterable[dict[str, Any]]:
    for w, loops in workloads.items():
        x, y = (counters(r.get(RunPath.MANUAL, w, loops)) for r in (first, other))
        for name in sorted(set(x) | set(y)):
            if watched(name):
                yield {"workload": w, "counter": name, "a": x.get(name, 0), "b": y.get(name, 0)}


def worst(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per counter group: the row with the largest absolute difference, and the largest relative one."""
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for r in rows:
        d = abs(r["a"] - r["b"])
        rel = d / max(abs(r["a"]), abs(r["b"]), 1)
        g = out[group(r["counter"])]
        if d > g.get("abs", (-1,))[0]:
            g["abs"] = (d, r)
        if rel > g.get("rel", (-1,))[0]:
            g["rel"] = (rel, r)
    return out


def cell(found: dict[str, Any] | None) -> tuple[str, str]:
    if not found:
        return "–", "–"
    d, r = found["abs"]
    rel, rr = found["rel"]
    return (
        f"{d:,.1f} ({r['workload']}: {r['a']:,.1f} vs {r['b']:,.1f})",
        f"{rel:.1%} ({rr['workload']}: {rr['a']:,.1f} vs {rr['b']:,.1f})",
    )


def save(runs: Runs, only: set[str], entry: Any, table: str, into: Path) -> None:
    """The raw dumps of every run of the workloads ``only`` (and the null), gzipped, as
    ``into/<path>-<workload>-<loops>/<dump>.txt.gz``; the build's names.json and canary table."""
    into.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(entry.names_path, into / "names.json")
    (into / "table.json").write_text(table)
    for (path, w, loops), run in runs.results.items():
        if isinstance(run, Exception) or w not in only:
            continue
        folder = into / f"{path}-{w}-{loops}"
        folder.mkdir(exist_ok=True)
        for r in run.runs:
            for dump in r.stats_files:
                with gzip.open(folder / f"{dump.name}.gz", "wt") as f:
                    f.write(dump.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="v3.13.5")
    parser.add_argument("--config", default="default")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--save-workloads", default="null,nbody,json_roundtrip,classes,strings,leaky,leaky_alloc")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    proc = run_invoke("build", "--rev", args.rev, "--config", args.config)
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return proc.returncode
    ctx = Context(settings_from_environment(os.environ))
    entry = lookup(ctx.settings.builds_dir, cache_key(proc.stdout.splitlines()))
    assert entry is not None
    suite = load_suite()
    workloads = {**suite.workloads, **{w: min(suite.workloads.values()) for w in LEAKY}}
    repeats: list[Runs] = []
    for i in range(args.repeats):
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            repeats.append(collect_runs(ctx, entry, workloads, suite, pool, lambda: None))
        print(f"repeat {i + 1} of {args.repeats} done", file=sys.stderr)
    if args.save:
        save(repeats[0], set(args.save_workloads.split(",")), entry, canary_table(ctx, entry), args.save)
    plain = {w: n for w, n in workloads.items() if w not in LEAKY}
    path_rows = [r for runs in repeats for r in path_differences(runs, plain, suite)]
    leak_rows = [r for runs in repeats for r in path_differences(runs, {w: workloads[w] for w in LEAKY}, suite)]
    run_rows = [r for other in repeats[1:] for r in run_differences(repeats[0], other, plain)]
    by_path, by_runs, by_leak = worst(path_rows), worst(run_rows), worst(leak_rows)
    table = Table(title=f"{args.rev} ({args.config}): {args.repeats} repeats, per process / per bracket")
    for col in ("counter", "path: largest", "path: largest relative", "runs: largest", "runs: largest relative"):
        table.add_column(col)
    for g in sorted(set(by_path) | set(by_runs), key=lambda g: (kind_of(g), g)):
        table.add_row(g, *cell(by_path.get(g)), *cell(by_runs.get(g)))
    console = Console(width=220)
    console.print(table)
    leaks = Table(title="planted leaks: automated vs manual per process")
    for col in ("counter", "largest", "largest relative"):
        leaks.add_column(col)
    for g in sorted(by_leak, key=lambda g: (kind_of(g), g)):
        leaks.add_row(g, *cell(by_leak[g]))
    console.print(leaks)
    if args.json:
        args.json.write_text(json.dumps({"path": path_rows, "runs": run_rows, "leaks": leak_rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
