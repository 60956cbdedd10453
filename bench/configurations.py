"""Every build configuration at every release revision: refused while planning (with the reason), or built
and fingerprinted, as a Markdown table (docs/builds-and-cache.md#configurations).

    python3 bench/configurations.py [--revs v3.11.2,v3.12.0,v3.13.5] [--configs default,tier2,...] [--plan-only]
        [--matrix] [--threads]

Uses the default cache (settings as `invoke` reads them: INVOKE_PYSTATS_*): a build already there is
not built again, and its row shows what its manifest recorded when it was built (build seconds: configure
+ make + install + fingerprint; ccache hits/misses of that build, so a cold build is seen as one). The
entry's size is what ``du -s`` counts. ``--plan-only`` plans every cell and builds nothing. ``--matrix``: a row
per configuration, a column per revision, as the README shows it. ``--threads``: on each build, the threaded
canary (configs/suite.toml [threads], as `invoke validate`'s step runs it): whether counters hold under
threads, or the family, thread count and share counted of the worst run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pystats_harness.builder.configurations import config_name, load_configurations
from pystats_harness.builder.obtain import cached, obtain, plan_for
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import context, resolve
from pystats_harness.errors import ConfigurationUnsupported, HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.measure import threads
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.validate.tier2 import traces
from tests.support.disk import disk_mb

REVS = ("v3.11.2", "v3.12.0", "v3.13.5")
PHASES = ("configure", "make", "install", "fingerprint")


def _fingerprint(manifest: dict[str, Any]) -> str:
    verification = manifest.get("verification", {})
    exempt = verification.get("exempt", {})
    if not verification.get("ok"):
        return "fingerprint differs: " + "; ".join(verification.get("mismatches", []))
    return "fingerprinted" + (f" (exempt: {', '.join(exempt)})" if exempt else "")


def held_under_threads(ctx: Context, entry: Any) -> str:
    """What the threaded canary says of a build, in a few words."""
    if traces(entry.manifest()):
        return "threads: not judged (the canary's loop runs as uops)"
    verdict = threads.held(ctx, entry, load_suite().threads)
    if verdict.cannot:
        return f"threads: not counted ({verdict.cannot})"
    worst = verdict.worst()
    if verdict.exact or worst is None:
        return "counters hold under threads"
    if verdict.alive_missing():
        return "counters hold under threads, but the threads alive at the exit dump are missing from it"
    return f"counters lose updates under threads ({worst.family} {float(worst.share):.1%} with {worst.threads} threads)"


def cell(ctx: Context, rev: str, config: str, *, build: bool, under_threads: bool = False) -> dict[str, Any]:
    """One row: the outcome of planning (and building) ``config`` at ``rev``."""
    row: dict[str, Any] = {"config": config, "rev": rev, "seconds": "", "size": "", "ccache": "", "form": ""}
    try:
        commit = resolve(ctx, rev)
        plan = plan_for(ctx, Recipe(commit, "auto", config_name(config)))
        row["form"] = plan.configuration.form
        if not build:
            hit = cached(ctx, plan) is not None
            return {**row, "outcome": "planned: " + ("cached" if hit else "would build")}
        entry = obtain(ctx, plan).entry
    except ConfigurationUnsupported as exc:
        return {**row, "outcome": "refused: " + "; ".join(exc.reasons)}
    except HarnessError as exc:
        return {**row, "outcome": f"failed (exit {exc.exit_code}): {str(exc).splitlines()[0][:160]}"}
    m = entry.manifest()
    seconds = m.get("seconds", {})
    ccache = m.get("ccache", {})
    return {
        **row,
        "outcome": f"built + {_fingerprint(m)}",
        "threads": held_under_threads(ctx, entry) if under_threads else "",
        "seconds": f"{sum(seconds.get(p, 0) for p in PHASES):.0f}",
        "size": f"{disk_mb(entry.path):.0f}",
        "ccache": f"{ccache.get('hits', '?')}/{ccache.get('misses', '?')}",
    }


def to_markdown(rows: list[dict[str, Any]]) -> str:
    head = "| configuration | revision | form | outcome | build s | ccache hits/misses | entry MB |"
    lines = [head, "|:---|:---|:---|:---|---:|---:|---:|"]
    for r in rows:
        outcome = r["outcome"].replace("|", "\\|")
        lines.append(
            f"| {r['config']} | {r['rev']} | {r['form']} | {outcome} | {r['seconds']} | {r['ccache']} | {r['size']} |"
        )
    return "\n".join(lines)


def to_matrix(rows: list[dict[str, Any]]) -> str:
    """The README's form: a row per configuration, a column per revision, each cell its outcome (the
    form that was built, or why the revision was refused)."""
    revs = list(dict.fromkeys(r["rev"] for r in rows))
    lines = ["| configuration | " + " | ".join(f"`{rev}`" for rev in revs) + " |", "|:---" * (len(revs) + 1) + "|"]
    for config in dict.fromkeys(r["config"] for r in rows):
        cells = {r["rev"]: r for r in rows if r["config"] == config}
        text = [
            (
                (f"{c['outcome']} ({c['form']})" if c["form"] else c["outcome"])
                + (f"; {c['threads']}" if c.get("threads") else "")
            ).replace("|", "\\|")
            for c in (cells[rev] for rev in revs)
        ]
        lines.append(f"| `{config}` | " + " | ".join(text) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--revs", default=",".join(REVS))
    ap.add_argument("--configs", default=",".join(load_configurations().by_name))
    ap.add_argument("--plan-only", action="store_true", help="plan every cell, build nothing")
    ap.add_argument("--matrix", action="store_true", help="a row per configuration, a column per revision (README)")
    ap.add_argument("--threads", action="store_true", help="run the threaded canary on each build")
    args = ap.parse_args()
    prefix = "INVOKE_PYSTATS_"
    ctx = context({k[len(prefix) :].lower(): v for k, v in os.environ.items() if k.startswith(prefix)})
    rows = []
    for config in args.configs.split(","):
        for rev in args.revs.split(","):
            rows.append(cell(ctx, rev, config, build=not args.plan_only, under_threads=args.threads))
            print(f"{config} @ {rev}: {rows[-1]['outcome']} {rows[-1].get('threads', '')}", file=sys.stderr, flush=True)
    print(to_matrix(rows) if args.matrix else to_markdown(rows))


if __name__ == "__main__":
    main()
