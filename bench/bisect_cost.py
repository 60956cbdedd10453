"""What a bisect costs: builds done, seconds per step and total wall time, against the log2(N) + 2 goal.

    python bench/bisect_cost.py [--commits 40] [--step-at 23] [--base v3.13.5] [--workload nbody]
        [--metric EXPR] [--jobs N] [--keep]
    python bench/bisect_cost.py --simulate [--sizes 32,64,128,256] [--failure-rates 0,0.05,0.15,0.3]
        [--trials 300] [--clustered] [--seed 1]

Real mode: a synthetic history of ``--commits`` commits on top of ``--base`` (each a comment in one of
a few ``Objects/*.c`` files, like neighbouring commits; the commit at ``--step-at`` makes
``_Py_Specialize_BinaryOp`` refuse float additions, so nbody's share of specialized BINARY_OP hits
drops from ~0.96 to ~0.72), in a scratch cache dir with a scratch (empty) ccache volume, both removed
afterwards; the mirror is fetched from the default cache's mirror.  Then ``invoke bisect``'s code
(:func:`pystats_harness.bisect.driver.run_bisect`) runs from good = base to bad = the tip.  The good
endpoint's build is the cold build (empty ccache, no configure cache); every later step is a
neighbouring build (warm ccache, cached configure results) plus a run.  Printed: each step (commit,
source, build/run/total seconds, % of the cold build), builds done next to ``ceil(log2(N)) + 2``,
seconds per step (first and later) against the cold build, total wall time, whether the planted
commit was found, and a second run of the same bisect (zero builds, results store).  Goals:
builds <= ceil(log2(N)) + 2; every step after the first <= 15 % of the cold build.

``--simulate`` runs the search core (:func:`pystats_harness.bisect.search.bisect`) over synthetic histories:
a step at a random position, each commit between the endpoints failing with the given probability
(``--clustered``: failures come in runs, like a broken stretch of history), and counts measurements
(the two endpoints included) per bisect, next to ``ceil(log2(N)) + 2``.  No Docker, no git.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contextlib

from pystats_harness.bisect.judge import Judge
from pystats_harness.bisect.search import bisect
from pystats_harness.measure.outcome import Failure, Outcome
from tests.support.planted import FLOAT_ADD_RULE
from tests.support.repo import EPOCH, commit_files


def history(rng: random.Random, n: int, rate: float, clustered: bool) -> tuple[list[float | None], int]:
    """Values 1.0 (good) / 2.0 (bad) with a step at a random index, and None for failing commits."""
    step = rng.randrange(1, n)
    values: list[float | None] = [
        1.0 + rng.uniform(-0.2, 0.2) if i < step else 2.0 + rng.uniform(-0.2, 0.2) for i in range(n)
    ]
    i = 1
    while i < n - 1:
        if rng.random() < (rate / 4 if clustered else rate):
            run = rng.randint(2, 6) if clustered else 1
            for j in range(i, min(i + run, n - 1)):
                values[j] = None
            i += run
        else:
            i += 1
    return values, step


def simulate_one(values: list[float | None]) -> tuple[int, bool, int, int]:
    """(measurements incl. endpoints, exact?, first candidate, last candidate)."""
    commits = [f"{i:040x}" for i in range(len(values))]

    def measure(i: int) -> Outcome:
        v = values[i]
        return Outcome.failed(Failure.BUILD_FAILED) if v is None else Outcome.ok(v)

    result = bisect(commits, measure, Judge.from_endpoints(values[0], values[-1]))  # type: ignore[arg-type]
    return result.measurements + 2, result.exact, result.candidates[0], result.candidates[-1]


def simulate(sizes: list[int], rates: list[float], trials: int, clustered: bool, seed: int) -> int:
    rng = random.Random(seed)
    print(
        f"search core over synthetic histories ({trials} bisects per row, "
        f"{'clustered' if clustered else 'independent'} failures, seed {seed})"
    )
    print(
        f"{'N':>5} {'fail rate':>9} {'failed':>7} {'goal':>5} {'mean':>6} {'median':>6} {'max':>4} "
        f"{'≤ goal':>7} {'exact':>6} {'found':>6}"
    )
    worst_over = 0
    for n in sizes:
        goal = math.ceil(math.log2(n)) + 2
        for rate in rates:
            counts, exact, found, failed = [], 0, 0, 0
            for _ in range(trials):
                values, step = history(rng, n, rate, clustered)
                failed += sum(v is None for v in values)
                count, is_exact, first, last = simulate_one(values)
                counts.append(count)
                exact += is_exact
                found += first <= step <= last  # the true step is inside the reported range
            within = sum(c <= goal for c in counts) / trials
            if rate == 0:
                worst_over = max(worst_over, max(counts) - goal)
            print(
                f"{n:5d} {rate:9.2f} {failed / trials / max(n - 2, 1):7.1%} {goal:5d} "
                f"{statistics.fmean(counts):6.2f} {statistics.median(counts):6.1f} {max(counts):4d} "
                f"{within:7.1%} {exact / trials:6.1%} {found / trials:6.1%}"
            )
    print(
        "goal = ceil(log2(N)) + 2 measurements (builds) including good and bad; "
        "'found' = the true step is the reported commit or inside the reported range"
    )
    return 1 if worst_over > 0 else 0


# --- real mode ----------------------------------------------------------------------------------------

TRIVIAL_FILES = ("Objects/floatobject.c", "Objects/longobject.c", "Objects/listobject.c", "Objects/tupleobject.c")
DEFAULT_METRIC = "opcode.BINARY_OP.specialization.hit / family.BINARY_OP.execution_count"


def synthetic_history(mirror_dir: Path, base: str, n: int, step_at: int) -> list[str]:
    """``n`` commits on top of ``base`` (returned oldest first, base excluded); commit ``step_at``
    (1-based, as an index on the bisect path) plants the change."""
    git = ["git", "--git-dir", str(mirror_dir)]

    def run(*args: str) -> str:
        return subprocess.run([*git, *args], capture_output=True, text=True, check=True).stdout.strip()

    texts: dict[str, str] = {}
    parent, shas = run("rev-parse", f"{base}^{{commit}}"), []
    for i in range(1, n + 1):
        if i == step_at:
            path = "Python/specialize.c"
            text = texts.get(path) or run("show", f"{parent}:{path}") + "\n"
            if text.count(FLOAT_ADD_RULE) != 1:
                sys.exit(f"{base}: the float-add rule of _Py_Specialize_BinaryOp was not found; use a 3.13 base")
            texts[path] = text.replace(FLOAT_ADD_RULE, "            /* bench: float additions not specialized */\n")
            message = "bench: do not specialize float additions in BINARY_OP"
        else:
            path = TRIVIAL_FILES[i % len(TRIVIAL_FILES)]
            texts[path] = (texts.get(path) or run("show", f"{parent}:{path}") + "\n") + f"/* bench commit {i} */\n"
            message = f"bench: trivial change {i} ({path})"
        files = {path: ("100644", texts[path])}
        parent = commit_files(mirror_dir, parent, files, message, branch="bench-bisect", date=EPOCH + 60 * i)
        shas.append(parent)
    return shas


def real(args: argparse.Namespace) -> int:
    from pystats_harness.bisect.driver import BisectRequest, run_bisect
    from pystats_harness.cli.bisect import RichProgress, goal
    from pystats_harness.config import load_settings
    from pystats_harness.infra import engine
    from pystats_harness.infra.context import Context
    from pystats_harness.infra.mirror import Mirror

    if args.commits < 32:
        sys.exit("--commits must be >= 32")
    if not 1 <= args.step_at <= args.commits:
        sys.exit("--step-at must be between 1 and --commits")
    wall = time.perf_counter()
    client = engine.connect()
    default = load_settings({})
    scratch = Path(tempfile.mkdtemp(prefix="pystats-bisect-bench-"))
    volume = f"pystats-bench-ccache-{os.getpid()}"
    try:
        settings = load_settings({"cache_dir": str(scratch), "ccache_volume": volume, "jobs": str(args.jobs)})
        Mirror(settings.mirror_dir).update(str(default.mirror_dir))
        shas = synthetic_history(settings.mirror_dir, args.base, args.commits, args.step_at)
        n = len(shas) + 1  # the path: base (good) + the synthetic commits (bad = the tip)
        print(
            f"{args.commits} commits on {args.base}, change planted at #{args.step_at} ({shas[args.step_at - 1][:10]}); "
            f"workload {args.workload}, make -j{settings.make_jobs}, scratch cache {scratch}, empty ccache volume",
            flush=True,
        )
        runs = []
        for _attempt in ("first", "again"):
            with RichProgress() as progress:
                ctx = Context(settings)
                request = BisectRequest.parse(
                    ctx, good=args.base, bad=shas[-1], workload=args.workload, metric=args.metric
                )
                runs.append(run_bisect(ctx, request, progress))
        first, again = runs

        def step_order(label: str) -> int:
            return {"good": -2, "bad": -1}.get(label) or int(label.split()[-1])

        recs = sorted(first.records.items(), key=lambda kv: step_order(first.labels[kv[0]]))
        cold = first.records[0].seconds.get("build", 0.0)
        manifest_cold = _manifest_seconds(scratch / "builds" / first.records[0].build_key)
        print()
        print(
            f"{'step':<8}{'#':>4} {'commit':<11}{'source':<22}{'build s':>8}{'run s':>7}{'total s':>8}{'% cold':>8}"
            f"   build phases (s)"
        )
        for index, rec in recs:
            src = rec.source + (", built" if rec.built else "") + (" (failed)" if not rec.outcome.usable else "")
            total = rec.seconds.get("total", 0.0)
            phases = _manifest_phases(scratch / "builds" / rec.build_key)
            print(
                f"{first.labels[index]:<8}{index:>4} {rec.commit.short:<11}{src:<22}{rec.seconds.get('build', 0):8.1f}"
                f"{rec.seconds.get('run', 0):7.1f}{total:8.1f}{100 * total / cold if cold else math.nan:7.1f}%   "
                + " ".join(f"{k} {v:.1f}" for k, v in phases.items())
            )
        later = [rec.seconds.get("total", 0.0) for index, rec in recs[1:]]
        r = first.report.result
        found = r.exact and r.commits[r.earliest_bad] == shas[args.step_at - 1]
        print()
        print(f"{'measure':<44}{'value':>12}{'goal':>14}")
        print(f"{'builds done (N = ' + str(n) + ' commits)':<44}{first.builds:>12d}{'<= ' + str(goal(n)):>14}")
        print(
            f"{'cold build (first step, build only)':<44}{cold:>11.1f}s"
            f"{'' if manifest_cold is None else f'  (phases {manifest_cold:.0f} s)':>14}"
        )
        print(f"{'first step (good, cold build + run)':<44}{recs[0][1].seconds.get('total', 0):>11.1f}s{'':>14}")
        print(f"{'later steps: mean seconds per step':<44}{statistics.fmean(later):>11.1f}s{'':>14}")
        print(f"{'later steps: max / cold build':<44}{100 * max(later) / cold:>11.1f}%{'<= 15%':>14}")
        print(f"{'later steps: mean / cold build':<44}{100 * statistics.fmean(later) / cold:>11.1f}%{'<= 15%':>14}")
        print(f"{'total wall time of the bisect':<44}{first.wall_seconds:>11.1f}s{'':>14}")
        print(f"{'planted commit found exactly':<44}{'yes' if found else 'NO':>12}{'yes':>14}")
        print(
            f"{'second run: builds / wall time':<44}{f'{again.builds} / {again.wall_seconds:.1f}s':>12}{'0 / fast':>14}"
        )
        print(f"{'bench wall time (history, mirror, both runs)':<44}{time.perf_counter() - wall:>11.1f}s")
        ok = found and first.builds <= goal(n) and max(later) <= 0.15 * cold and again.builds == 0
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept {scratch} and volume {volume}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
            with contextlib.suppress(Exception):
                client.volumes.get(volume).remove(force=True)


def _manifest_phases(build_dir: Path) -> dict[str, float]:
    """Seconds per build phase from a build's manifest (empty if there is none, e.g. a failed build)."""
    import json

    try:
        seconds = json.loads((build_dir / "manifest.json").read_text())["seconds"]
    except (OSError, ValueError, KeyError):
        return {}
    return {k: float(seconds[k]) for k in ("checkout", "configure", "make", "install", "fingerprint") if k in seconds}


def _manifest_seconds(build_dir: Path) -> float | None:
    phases = _manifest_phases(build_dir)
    return sum(v for k, v in phases.items() if k in ("configure", "make", "install")) if phases else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simulate", action="store_true", help="run the search over synthetic histories")
    ap.add_argument("--sizes", default="32,64,128,256", help="path lengths N (commits, endpoints included)")
    ap.add_argument("--failure-rates", default="0,0.05,0.15,0.3")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--clustered", action="store_true", help="failures in runs of 2-6 commits")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commits", type=int, default=40, help="real mode: synthetic commits on top of --base (>= 32)")
    ap.add_argument("--step-at", type=int, default=23, help="real mode: which commit (1..N) plants the change")
    ap.add_argument("--base", default="v3.13.5", help="real mode: good revision (a 3.13 tree)")
    ap.add_argument("--workload", default="nbody")
    ap.add_argument("--metric", default=DEFAULT_METRIC)
    ap.add_argument("--jobs", type=int, default=0, help="make -j (0 = cores)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch cache dir and ccache volume")
    args = ap.parse_args(argv)
    if not args.simulate:
        return real(args)
    sizes = [int(x) for x in args.sizes.split(",")]
    if any(n < 2 for n in sizes):
        ap.error("--sizes must be >= 2")
    rates = [float(x) for x in args.failure_rates.split(",")]
    return simulate(sizes, rates, args.trials, args.clustered, args.seed)


if __name__ == "__main__":
    sys.exit(main())
