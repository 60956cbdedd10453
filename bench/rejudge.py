"""Judge a finished collect again with the rules as they are now: read each benchmark's kept dumps
(``dumps/``, ``manual/``, ``null/``) and redo the agreement and leakage checks, without running anything.

    python3 bench/rejudge.py OUT [--rev REV] [--config CONFIG] [--residuals F.json]

Printed: per benchmark whose verdict or check statuses change, the old and the new, with the new detail;
then the leakage residual per shape (``kind:nargs`` of the timed functions) -- what the automated counts
differ from the manual path's prediction, counter by counter and in instructions executed, over the
benchmarks without a declared allowance -- which is what the machinery bound (configs/collect.toml
``[machinery]``) must cover. ``--residuals F`` writes every residual. OUT's report.json names the build
(its key); ``--rev`` builds or finds it when the cache no longer has it.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console
from rich.table import Table

from pystats_harness.builder.cache import lookup
from pystats_harness.collect import exactness, overhead, trust, workers
from pystats_harness.config import settings_from_environment
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.stats.exact import executed
from tests.support.builds import cache_key
from tests.support.invoke_runner import run_invoke

MACHINERY = exactness.load_machinery()
SHAPES = re.compile(r"the null benchmark \(([^)]*)\)")


def entry_for(report: dict[str, Any], rev: str | None, config: str) -> Any:
    settings = settings_from_environment(os.environ)
    key = report.get("metadata", {}).get("build_key")
    entry = lookup(settings.builds_dir, key) if key else None
    if entry is None and rev:
        proc = run_invoke("build", "--rev", rev, "--config", config)
        entry = lookup(settings.builds_dir, cache_key(proc.stdout.splitlines()))
    if entry is None:
        raise SystemExit(f"the build of {report.get('run', {}).get('revision', '?')} is not in the cache; pass --rev")
    return entry


def files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.txt")) if folder.is_dir() else []


def shapes(bench_dir: Path) -> tuple[str, ...]:
    try:
        net_of = json.loads((bench_dir / "net" / "collection.json").read_text())["metadata"]["net_of"]
    except (OSError, KeyError, ValueError):
        return ()
    found = SHAPES.search(net_of)
    return tuple(found.group(1).split(",")) if found else ()


def rejudge(entry: Any, bench_dir: Path, old: dict[str, Any], processes: int, rules: exactness.Rules) -> dict[str, Any]:
    count = functools.partial(overhead.counters, entry)
    per_dump = [count([d]) for d in files(bench_dir / "dumps")]
    nonempty = [c for c in per_dump if any(c.values())]
    nfunctions = max(1, len(old.get("functions") or ()))
    checks = {c["check"]: c for c in old["checks"]}
    new: dict[str, Any] = {}
    grouped = workers.groups(nonempty, nfunctions, processes)
    if grouped and "agreement" in checks:
        new["agreement"] = trust.check_agreement(grouped, rules)
    manual, null_auto, null_manual = (files(bench_dir / p) for p in ("manual", "null/automated", "null/manual"))
    residual = None
    if manual and null_auto and checks.get("leakage", {}).get("status") != "not checked":
        a_w = functools.reduce(overhead.add, per_dump, dict[str, int]())
        a_null = count(null_auto)
        counts = overhead.leak_counts(
            a_w, a_null, count(manual), count(null_manual), processes, nfunctions, shapes(bench_dir), MACHINERY
        )
        predicted = counts.predicted
        new["leakage"] = trust.check_leakage(counts, "", rules)
        residual = {
            "executed": executed(a_w) - executed(predicted),
            "largest": max(
                (
                    (n, a_w.get(n, 0) - predicted.get(n, 0))
                    for n in set(a_w) | set(predicted)
                    if not n.startswith("family.") and rules.suite.leak_rule(n) is None
                ),
                key=lambda kv: abs(kv[1]),
                default=("-", 0),
            ),
            "machinery": counts.machinery,
        }
    return {"checks": new, "residual": residual}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rev")
    parser.add_argument("--config", default="default")
    parser.add_argument("--residuals", type=Path)
    args = parser.parse_args()
    report = json.loads((args.out / "report.json").read_text())
    entry = entry_for(report, args.rev, args.config)
    suite, declared = load_suite(), exactness.load_declared()
    processes = int(report.get("metadata", {}).get("processes", 2))
    deferred = DeferredRule.from_source(entry.source_dir)
    console = Console(width=200)
    changes = Table(title=f"{args.out}: checks judged again with the rules as they are now")
    for col in ("benchmark", "check", "was", "now", "detail now"):
        changes.add_column(col, overflow="fold")
    residuals: dict[str, list[dict[str, Any]]] = defaultdict(list)
    verdicts: dict[str, str] = {}
    for bench in report["benchmarks"]:
        bench_dir = args.out / "benchmarks" / bench["name"]
        verdicts[bench["name"]] = bench["verdict"]
        if not (bench_dir / "dumps").is_dir():
            continue
        rules = exactness.Rules(suite, declared.get(bench["name"]), deferred=deferred)
        got = rejudge(entry, bench_dir, bench, processes, rules)
        for check, result in got["checks"].items():
            was = next(c["status"] for c in bench["checks"] if c["check"] == check)
            if was != result.status.value:
                changes.add_row(bench["name"], check, was, result.status.value, result.detail[:600])
        if got["checks"] and bench["verdict"] not in ("failed", "skipped", "unreliable"):
            kept = [
                trust.CheckResult(trust.Check(c["check"]), exactness.Status(c["status"]), c["detail"])
                for c in bench["checks"]
                if c["check"] not in got["checks"]
            ]
            verdicts[bench["name"]] = trust.verdict([*kept, *got["checks"].values()]).value
        if got["residual"] is not None and bench["name"] not in declared:
            residuals[",".join(shapes(bench_dir)) or "?"].append({"benchmark": bench["name"], **got["residual"]})
    console.print(changes)
    tally = {v: sum(1 for x in verdicts.values() if x == v) for v in (t.value for t in trust.Verdict)}
    console.print("verdicts now: " + ", ".join(f"{n} {v}" for v, n in tally.items() if n))
    untrusted = sorted(n for n, v in verdicts.items() if v == "untrusted")
    console.print("untrusted now: " + (", ".join(untrusted) or "none"))
    table = Table(title="leakage residual per shape: counters without a leak-check rule (no declared allowance)")
    cols = ("shapes", "benchmarks", "largest |executed| residual", "largest one-counter residual (of the null's)")
    for col in (*cols, "null's instructions"):
        table.add_column(col, overflow="fold")
    for shape, rows in sorted(residuals.items()):
        worst_exec = max(rows, key=lambda r: abs(r["executed"]))
        worst_one = max(rows, key=lambda r: abs(r["largest"][1]) / max(r["machinery"], 1))
        table.add_row(
            shape,
            str(len(rows)),
            f"{worst_exec['executed']:,} ({worst_exec['benchmark']})",
            f"{worst_one['largest'][1]:,} in {worst_one['largest'][0]} ({worst_one['benchmark']}, "
            f"{abs(worst_one['largest'][1]) / max(worst_one['machinery'], 1):.1%})",
            f"{min(r['machinery'] for r in rows):,} .. {max(r['machinery'] for r in rows):,}",
        )
    console.print(table)
    if args.residuals:
        args.residuals.write_text(json.dumps(residuals, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
