"""Benchmark sites at one revision: every benchmark's requirements installed for its build, as collect
installs them, and what became of each (ready, with the tools that made it and the wheels compiled for
the interpreter; or skipped, with why).

    python bench/sites.py --rev ea72c6fe3b [--config default] [--benchmarks bm_yaml,bm_greenlet]

Builds the revision if it is not cached (the one door, builder/obtain.py) and makes the benchmark
wheelhouse if it is not complete. Prints a table, and a last line ``N of M sites ready, K skipped``;
exits 1 when one is skipped, and with the harness's exit code and its one line on bad input (an unknown
revision: 3). Uses the settings of the default cache (INVOKE_PYSTATS_* apply).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pystats_harness.builder.configurations import ConfigName
from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import context, error_exit, resolve
from pystats_harness.pyperformance.sites import SiteReady, benchmark_data_dir, prepare_site
from pystats_harness.pyperformance.wheelhouse import read_wheelhouse


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", required=True)
    parser.add_argument("--config", default="default")
    parser.add_argument("--benchmarks", default="", help="benchmark directories (default: every one with requirements)")
    args = parser.parse_args()
    ctx = context({})
    commit = resolve(ctx, args.rev)
    entry = obtain(ctx, plan_for(ctx, Recipe(commit, "auto", ConfigName(args.config)))).entry
    benchmark_data_dir(ctx)  # the wheelhouse, made if need be
    wheelhouse = read_wheelhouse(ctx.settings.wheelhouse_dir)
    wanted = args.benchmarks.split(",") if args.benchmarks else sorted(wheelhouse.index["requirements"])
    version = entry.manifest()["python"]["version"]
    table = Table(title=f"sites of {args.rev} ({commit.short}, Python {version}, --config {args.config})")
    for column in ("benchmark", "outcome", "tools", "lock", "compiled here", "seconds"):
        table.add_column(column)
    skipped = 0
    for bench in wanted:
        start = time.perf_counter()
        site = prepare_site(ctx, entry, bench)
        seconds = f"{time.perf_counter() - start:.0f}"
        if isinstance(site, SiteReady):
            outcome_file = site.path.parent / "outcome.json"
            outcome = json.loads(outcome_file.read_text()) if outcome_file.is_file() else {}
            built = ", ".join(name.split("-")[0] for name in outcome.get("built", []))
            lock = outcome.get("lock", "-")
            table.add_row(bench, "ready", outcome.get("installer", "-"), lock, built or "-", seconds)
        else:
            skipped += 1
            table.add_row(bench, f"[red]{site}[/red]", "", "", "", seconds)
    console = Console(width=200)
    console.print(table)
    console.print(f"{len(wanted) - skipped} of {len(wanted)} sites ready, {skipped} skipped")
    return 1 if skipped else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (Exception, KeyboardInterrupt) as exc:
        found = error_exit(exc)
        if found is None:
            raise
        print(found[0], file=sys.stderr)
        sys.exit(found[1])
