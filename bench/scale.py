"""Scale-out: rounds, builds, wall time and CPU utilisation of a k-ary bisect and a history on K workers.

    python bench/scale.py [--workers 1,2,4] [--history-workers 1,2] [--commits 40] [--step-at 23]
        [--history-count 8] [--history-benchmarks nbody,float,richards] [--base v3.13.5] [--keep]
    python bench/scale.py --simulate [--workers 1,2,4,8] [--commits 40] [--unit-seconds 45]

Real mode: the synthetic history of bench/bisect_cost.py (``--commits`` commits on ``--base``, the change
planted at ``--step-at``: a 41-commit path by default) in a scratch cache, then for each K a local Dask
cluster (``pystats_harness.cluster.local``: a scheduler and K ``dask worker`` processes, each with its
own empty harness cache; one shared scratch ccache volume, so every build after the first is warm)
runs :func:`pystats_harness.bisect.driver.run_bisect`, and for each K of ``--history-workers``
:func:`pystats_harness.history.driver.run_history` over ``--history-count`` commits of the series (``nbody``;
with ``--history-benchmarks`` those pyperformance benchmarks at every commit: one build, several
measurements per commit, which a worker overlaps with its next build). ``--workers ""`` skips the bisects.
Printed side by side: rounds, builds, wall time, host CPU utilisation (/proc/stat over the run, all
cores), whether the planted commit was found, and the wall time projected for K hosts: rounds x the
measured seconds of one unit (build + run) on one worker, since the units of a round run in parallel
on separate hosts. On this 2-core machine the K workers share two cores, so wall time cannot drop by
K: the rounds and the utilisation are what to read, and the projection.

``--simulate``: the k-ary search alone (pure, no Docker) over the same series for every step position,
rounds and builds per K, and the projected wall time with ``--unit-seconds`` per unit.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bisect_cost import DEFAULT_METRIC, synthetic_history

from pystats_harness.bisect.judge import Judge
from pystats_harness.bisect.kary import kary_bisect, rounds_needed
from pystats_harness.measure.outcome import Outcome
from tests.support.results import forget_measurements


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


@contextlib.contextmanager
def measured() -> Iterator[dict[str, float]]:
    """Wall seconds and host CPU utilisation (0..1 of all cores) of the block."""
    out: dict[str, float] = {}
    busy0, total0 = cpu_jiffies()
    t0 = time.perf_counter()
    yield out
    busy1, total1 = cpu_jiffies()
    out["wall"] = time.perf_counter() - t0
    out["cpu"] = (busy1 - busy0) / max(1, total1 - total0)


def simulate(args: argparse.Namespace) -> int:
    n = args.commits + 1
    print(f"k-ary search over a {n}-commit path, the step at every position; {args.unit_seconds:.0f} s per unit")
    print(
        f"{'K':>3}{'rounds max':>12}{'rounds mean':>13}{'builds mean':>13}{'log_(K+1)(N-1)':>16}{'projected wall':>16}"
    )
    for k in [int(x) for x in args.workers.split(",")]:
        rounds, builds = [], []
        for step in range(1, n):
            values = [0.0] * step + [1.0] * (n - step)

            def many(indices: Any, values: list[float] = values) -> dict[int, Outcome]:
                return {i: Outcome.ok(values[i]) for i in indices}

            result = kary_bisect([f"{i:040x}" for i in range(n)], many, Judge.from_endpoints(0.0, 1.0), k)
            assert result.first_bad == step
            rounds.append(result.rounds)
            builds.append(result.measurements + 2)
        projected = (1 + statistics.fmean(rounds)) * args.unit_seconds  # + the endpoints' round
        print(
            f"{k:>3}{max(rounds):>12}{statistics.fmean(rounds):>13.2f}{statistics.fmean(builds):>13.2f}"
            f"{rounds_needed(n - 1, k):>16}{projected:>15.0f}s"
        )
    return 0


def _cluster_run(settings: Any, base: Path, k: int, work: Callable[[Any], Any]) -> tuple[Any, dict[str, float]]:
    from pystats_harness.cluster.client import Cluster
    from pystats_harness.cluster.local import local_cluster
    from pystats_harness.infra.context import Context

    # every K starts without this machine's results store (it would answer the later runs without a worker)
    forget_measurements(settings.paths)
    with local_cluster(settings, base, k) as cluster:
        with Cluster[object, object](cluster.address, min_workers=k):
            pass
        with measured() as m:
            result = work(Context(settings.with_overrides(cluster=cluster.address)))
    return result, m


def real(args: argparse.Namespace) -> int:
    from pystats_harness.bisect.driver import BisectRequest, run_bisect
    from pystats_harness.config import load_settings
    from pystats_harness.history.driver import HistoryRequest, run_history
    from pystats_harness.infra import engine
    from pystats_harness.infra.mirror import Mirror

    client = engine.connect()
    scratch = Path(tempfile.mkdtemp(prefix="pystats-scale-bench-"))
    volume = f"pystats-scale-bench-ccache-{os.getpid()}"
    rows, history_rows, ok = [], [], True
    try:
        settings = load_settings({"cache_dir": str(scratch / "client"), "ccache_volume": volume})
        Mirror(settings.mirror_dir).update(str(load_settings({}).mirror_dir))
        shas = synthetic_history(settings.mirror_dir, args.base, args.commits, args.step_at)
        print(
            f"{args.commits + 1}-commit path on {args.base}, change at #{args.step_at}; workers share {os.cpu_count()} cores"
        )
        for k in [int(x) for x in args.workers.split(",") if x]:

            def bisect(ctx: Any) -> Any:
                request = BisectRequest.parse(
                    ctx, good=args.base, bad=shas[-1], workload="nbody", metric=DEFAULT_METRIC
                )
                return run_bisect(ctx, request)

            run, m = _cluster_run(settings, scratch / f"bisect-k{k}", k, bisect)
            r = run.report.result
            unit = statistics.fmean(rec.seconds.get("total", 0.0) for rec in run.records.values())
            found = r.exact and r.commits[r.earliest_bad] == shas[args.step_at - 1]
            ok &= found
            rows.append((k, r.rounds, run.builds, m["wall"], m["cpu"], unit, (1 + r.rounds) * unit, found))
        for k in [int(x) for x in args.history_workers.split(",")]:
            what = {"benchmarks": args.history_benchmarks} if args.history_benchmarks else {"workload": "nbody"}

            def hist(ctx: Any, what: dict[str, str] = what) -> Any:
                request = HistoryRequest.parse(
                    ctx, start=args.base, end=shas[-1], metrics=[DEFAULT_METRIC], count=args.history_count, **what
                )
                return run_history(ctx, request)

            run, m = _cluster_run(settings, scratch / f"history-k{k}", k, hist)
            unit = statistics.fmean(rec.seconds.get("total", 0.0) for rec in run.records)
            commits = len(run.rows)
            build_s = sum(max(r.seconds.get("build", 0.0) for r in row) for row in run.rows)
            run_s = sum(r.seconds.get("run", 0.0) for r in run.records)
            projected = math.ceil(commits / k) * unit
            history_rows.append(
                (k, commits, run.builds, run.sent, m["wall"], m["cpu"], build_s, run_s, unit, projected)
            )
    finally:
        _print(rows, history_rows)
        if args.keep:
            print(f"kept {scratch} and volume {volume}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
            with contextlib.suppress(Exception):
                client.volumes.get(volume).remove(force=True)
    return 0 if ok else 1


def _print(rows: list[tuple], history_rows: list[tuple]) -> None:
    print(f"\n{'bisect K':<10}{'rounds':>7}{'builds':>7}{'wall s':>9}{'CPU':>7}{'s/unit':>8}{'K hosts s':>11}  found")
    for k, rounds, builds, wall, cpu, unit, projected, found in rows:
        print(
            f"{k:<10}{rounds:>7}{builds:>7}{wall:>9.0f}{cpu:>7.0%}{unit:>8.0f}{projected:>11.0f}  {'yes' if found else 'NO'}"
        )
    head = f"{'commits':>7}{'builds':>7}{'units':>7}{'wall s':>9}{'CPU':>7}{'build s':>9}{'run s':>7}{'s/rec':>7}"
    print(f"\n{'history K':<10}{head}{'K hosts s':>11}")
    for k, commits, builds, units, wall, cpu, build_s, run_s, unit, projected in history_rows:
        line = f"{commits:>7}{builds:>7}{units:>7}{wall:>9.0f}{cpu:>7.0%}{build_s:>9.0f}{run_s:>7.0f}{unit:>7.0f}"
        print(f"{k:<10}{line}{projected:>11.0f}")
    print("build s: the builds' seconds summed (one per commit); run s: the measurements' (one per workload)")
    print(
        "\nK hosts s: projected wall time with each worker on its own host (rounds x seconds per unit, endpoints included)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--history-workers", default="1,2")
    ap.add_argument("--history-count", type=int, default=8)
    ap.add_argument(
        "--history-benchmarks", default="", help="e.g. nbody,float,richards: several measurements per build"
    )
    ap.add_argument("--commits", type=int, default=40)
    ap.add_argument("--step-at", type=int, default=23)
    ap.add_argument("--base", default="v3.13.5")
    ap.add_argument("--unit-seconds", type=float, default=45.0, help="--simulate: seconds per unit (build + run)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    return simulate(args) if args.simulate else real(args)


if __name__ == "__main__":
    sys.exit(main())
