"""What a bisect costs: builds done, seconds per step and total wall time, against the log2(N) + 2 goal.

    python bench/bisect_cost.py --simulate [--sizes 32,64,128,256] [--failure-rates 0,0.05,0.15,0.3]
        [--trials 300] [--clustered] [--seed 1]

Real mode (not wired yet; the lead connects it to real builds): bisect a known change over a path
of at least 32 CPython commits (e.g. a pystats counter that moved between two 3.13 commits) with an
empty build cache, and report per step the commit, whether it was a cache hit, build seconds, run
seconds and the remaining-steps estimate; then the number of builds, the total wall time and
``ceil(log2(N)) + 2`` side by side.  A second run over the same range must do zero builds (result
cache), and widening the range must only build the new commits.

``--simulate`` runs the search core (:func:`pystats_harness.search.bisect`) over synthetic histories:
a step at a random position, each commit between the endpoints failing with the given probability
(``--clustered``: failures come in runs, like a broken stretch of history), and counts measurements
(the two endpoints included) per bisect, next to ``ceil(log2(N)) + 2``.  No Docker, no git.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pystats_harness.search import BUILD_FAILED, Judge, Outcome, bisect  # noqa: E402


def history(rng: random.Random, n: int, rate: float, clustered: bool) -> tuple[list[float | None], int]:
    """Values 1.0 (good) / 2.0 (bad) with a step at a random index, and None for failing commits."""
    step = rng.randrange(1, n)
    values: list[float | None] = [1.0 + rng.uniform(-0.2, 0.2) if i < step else 2.0 + rng.uniform(-0.2, 0.2)
                                  for i in range(n)]
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
        return Outcome.failed(BUILD_FAILED) if v is None else Outcome.ok(v)

    result = bisect(commits, measure, Judge.from_endpoints(values[0], values[-1]))  # type: ignore[arg-type]
    return result.measurements + 2, result.exact, result.candidates[0], result.candidates[-1]


def simulate(sizes: list[int], rates: list[float], trials: int, clustered: bool, seed: int) -> int:
    rng = random.Random(seed)
    print(f"search core over synthetic histories ({trials} bisects per row, "
          f"{'clustered' if clustered else 'independent'} failures, seed {seed})")
    print(f"{'N':>5} {'fail rate':>9} {'failed':>7} {'goal':>5} {'mean':>6} {'median':>6} {'max':>4} "
          f"{'≤ goal':>7} {'exact':>6} {'found':>6}")
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
            print(f"{n:5d} {rate:9.2f} {failed / trials / max(n - 2, 1):7.1%} {goal:5d} "
                  f"{statistics.fmean(counts):6.2f} {statistics.median(counts):6.1f} {max(counts):4d} "
                  f"{within:7.1%} {exact / trials:6.1%} {found / trials:6.1%}")
    print("goal = ceil(log2(N)) + 2 measurements (builds) including good and bad; "
          "'found' = the true step is the reported commit or inside the reported range")
    return 1 if worst_over > 0 else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simulate", action="store_true", help="run the search over synthetic histories")
    ap.add_argument("--sizes", default="32,64,128,256", help="path lengths N (commits, endpoints included)")
    ap.add_argument("--failure-rates", default="0,0.05,0.15,0.3")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--clustered", action="store_true", help="failures in runs of 2-6 commits")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if not args.simulate:
        print("real mode is not wired to builds yet; use --simulate", file=sys.stderr)
        return 2
    sizes = [int(x) for x in args.sizes.split(",")]
    if any(n < 2 for n in sizes):
        ap.error("--sizes must be >= 2")
    rates = [float(x) for x in args.failure_rates.split(",")]
    return simulate(sizes, rates, args.trials, args.clustered, args.seed)


if __name__ == "__main__":
    sys.exit(main())
