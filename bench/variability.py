"""Which benchmarks' counts vary, and by how much: read `invoke collect` outputs, print per benchmark the
counters that were not exact (agreement between workers, and leakage beyond the bracket machinery's
own size) and the smallest `[variable.<benchmark>]` allowance of configs/collect.toml that would cover
every run given.

    python3 bench/variability.py OUT [OUT ...] [--abs N] [--toml]

Each OUT is a collect output directory (its report.json). A counter passes an allowance when
``|a - b| <= abs + rel * max(|a|, |b|)``; for each benchmark the table shows the largest ``rel`` needed
with the given ``--abs`` (default 4 counts), the check and counter that need it, and the instructions
the benchmark executed. ``--toml`` prints the tables to paste (rel rounded up to the next 5 %; the
reason is left for you to write from what the counters say). Nothing is run; the numbers come from the
reports as they are.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table


@dataclass(frozen=True)
class Need:
    benchmark: str
    rel: float
    check: str
    counter: str
    a: int
    b: int
    runs: int


def needs(reports: Iterable[dict], absolute: int) -> dict[str, Need]:
    found: dict[str, Need] = {}
    seen: dict[str, int] = {}
    for report in reports:
        for bench in report["benchmarks"]:
            name = bench["name"]
            seen[name] = seen.get(name, 0) + 1
            for check in bench["checks"]:
                if check["check"] not in ("agreement", "leakage"):
                    continue
                for f in check["findings"]:
                    if f.get("within") == "machinery" or f.get("counter") == "instructions executed":
                        continue
                    a, b = int(f["a"]), int(f["b"])
                    rel = max(0, abs(a - b) - absolute) / max(abs(a), abs(b), 1)
                    if rel > 0 and (name not in found or rel > found[name].rel):
                        found[name] = Need(name, rel, check["check"], f["counter"], a, b, 0)
    return {n: Need(**{**need.__dict__, "runs": seen[n]}) for n, need in found.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outputs", nargs="+", type=Path)
    parser.add_argument("--abs", type=int, default=4, dest="absolute")
    parser.add_argument("--toml", action="store_true")
    args = parser.parse_args()
    reports = [json.loads((out / "report.json").read_text()) for out in args.outputs]
    found = needs(reports, args.absolute)
    if args.toml:
        for need in sorted(found.values(), key=lambda n: n.benchmark):
            rel = min(0.95, math.ceil(need.rel * 20 + 1e-9) / 20)
            print(f"[variable.{need.benchmark}]\nrel = {rel:.2f}\nabs = {args.absolute}")
            print(f'reason = ""\nmeasured = "max {need.rel:.1%} ({need.check}: {need.counter} {need.a} vs {need.b})"\n')
        return 0
    table = Table(title=f"not exact in {len(args.outputs)} collect output(s), abs = {args.absolute}")
    for column in ("benchmark", "rel needed", "check", "counter", "a", "b", "runs"):
        table.add_column(column)
    for need in sorted(found.values(), key=lambda n: -n.rel):
        table.add_row(
            need.benchmark, f"{need.rel:.1%}", need.check, need.counter, f"{need.a:,}", f"{need.b:,}", str(need.runs)
        )
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
