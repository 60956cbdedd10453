"""Do counters hold under threads?  The threaded canary (configs/suite.toml [threads]) on builds of
several revisions and configurations, one row per build and thread count.

    python3 bench/threads_table.py [--builds REV:CONFIG,...] [--sweep] [--repeats R] [--out DIR] [--resume]

``--builds`` (default ``v3.13.5:default,v3.13.5:freethreading``) names each build as REV:CONFIG;
``--sweep`` adds every revision of bench/trust_sweep.py's sample with the default configuration (the
mirror must hold them: ``invoke mirror --remote $PYSTATS_CPYTHON_GIT``).  Each build goes through
``invoke build`` (the cache), then the canary runs in one container (measure/threads.py: T threads of
the kernel inside one bracket, for K in 0, N, 2N and every T, R times).  Printed: a Markdown table,
per build and T, the family furthest from 100 % (worst of the runs), the range over every family and
whether every count was exact; ``DIR/threads.json`` keeps every verdict (``--resume`` reuses them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.trust_sweep import SAMPLE
from pystats_harness.builder.cache import lookup
from pystats_harness.config import settings_from_environment
from pystats_harness.infra.context import Context
from pystats_harness.measure import threads
from pystats_harness.measure.suiteconfig import load_suite
from tests.support.builds import cache_key
from tests.support.invoke_runner import run_invoke

DEFAULT_BUILDS = "v3.13.5:default,v3.13.5:freethreading"


def measure_one(rev: str, config: str, plan: Any, ctx: Context) -> dict[str, Any]:
    start = time.monotonic()
    proc = run_invoke("build", "--rev", rev, "--config", config)
    if proc.returncode != 0:
        why = ([ln for ln in proc.stderr.splitlines() if ln.strip()] or ["no output"])[-1][:200]
        return {"rev": rev, "config": config, "error": f"build exit {proc.returncode}: {why}"}
    entry = lookup(ctx.settings.builds_dir, cache_key(proc.stdout.splitlines()))
    assert entry is not None
    built = time.monotonic()
    verdict = threads.held(ctx, entry, plan)
    manifest = entry.manifest()
    return {
        "rev": rev,
        "config": config,
        "sha": manifest["sha"][:10],
        "python": manifest["python"]["version"],
        "date": str(manifest.get("commit_date", "?"))[:10],
        "seconds": {"build": round(built - start), "canary": round(time.monotonic() - built)},
        **verdict.to_dict(),
    }


def rows(doc: dict[str, Any]) -> list[str]:
    """Markdown rows of one build: one per thread count."""
    name = f"`{doc['rev']}` ({doc.get('date', '?')}, {doc.get('python', '?')})"
    if "error" in doc:
        return [f"| {doc['config']} | {name} | – | not run: {doc['error']} | | | |"]
    if doc["cannot"]:
        return [f"| {doc['config']} | {name} | – | not counted: {doc['cannot']} | | | |"]
    out = []
    bad = {m["threads"] for m in doc["mismatches"]}
    for t, shares in sorted(doc["counted"].items(), key=lambda kv: int(kv[0])):
        worst = max(shares, key=lambda f: abs(shares[f] - 1))
        low, high = min(shares.values()), max(shares.values())
        exact = "no" if int(t) in bad else "yes"
        out.append(
            f"| {doc['config']} | {name} | {t} | {worst} | {shares[worst]:.1%} | {low:.1%} .. {high:.1%} | {exact} |"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--builds", default=DEFAULT_BUILDS)
    p.add_argument("--sweep", action="store_true", help="add the trust sweep's revisions (default configuration)")
    p.add_argument("--repeats", type=int, default=None, help="runs per thread count (default: configs/suite.toml)")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--resume", action="store_true")
    args = p.parse_args(argv)
    settings = settings_from_environment(os.environ)
    ctx = Context(settings)
    plan = load_suite().threads
    plan = replace(plan, repeats=args.repeats) if args.repeats else plan
    out = args.out or settings.cache_dir / "threads_table"
    out.mkdir(parents=True, exist_ok=True)
    builds = [tuple(b.split(":", 1)) for b in args.builds.split(",") if b]
    builds += [(rev, "default") for rev, _ in SAMPLE if args.sweep and (rev, "default") not in builds]
    store = out / "threads.json"
    done = json.loads(store.read_text()) if args.resume and store.is_file() else []
    have = {(d["rev"], d["config"]) for d in done if "error" not in d}
    for rev, config in builds:
        if (rev, config) in have:
            continue
        done = [d for d in done if (d["rev"], d["config"]) != (rev, config)] + [measure_one(rev, config, plan, ctx)]
        store.write_text(json.dumps(done, indent=1) + "\n")
        print(f"{rev} {config}: {done[-1].get('line') or done[-1].get('error')}", file=sys.stderr)
    order = {b: i for i, b in enumerate(builds)}
    chosen = sorted((d for d in done if (d["rev"], d["config"]) in order), key=lambda d: order[(d["rev"], d["config"])])
    print(f"threaded canary {plan.kernel}, N = {plan.n}, {plan.repeats} runs per thread count")
    print("| configuration | revision | T | worst family | counted (worst run) | every family | exact |")
    print("|---|---|---:|---|---:|---|---|")
    for doc in chosen:
        print("\n".join(rows(doc)))
    return 1 if any("error" in d or not d.get("exact", False) for d in chosen if d["config"] == "default") else 0


if __name__ == "__main__":
    sys.exit(main())
