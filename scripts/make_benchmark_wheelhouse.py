#!/usr/bin/env python3
"""make_benchmark_wheelhouse.py WHEELHOUSE_DIR [--versions 3.11,3.12,3.13] -- pyperformance's benchmarks offline.

Fetches into WHEELHOUSE_DIR/benchmarks/ whatever it lacks (the layout: pystats_harness/pyperformance/
wheelhouse_fetch.py), one process at a time, and marks it complete last. `invoke collect` (and `history`
or `bisect` with pyperformance benchmarks) do the same when they first need it; run this to make it
ahead of time, or again after a failure. Idempotent: a second run asks the package index nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's pystats_harness


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> int:
    from pystats_harness.builder.locks import Owner
    from pystats_harness.errors import HarnessError
    from pystats_harness.pyperformance import wheelhouse_ensure
    from pystats_harness.pyperformance.wheelhouse_fetch import DEFAULT_VERSIONS

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("wheelhouse_dir", type=Path)
    parser.add_argument("--versions", default=",".join(DEFAULT_VERSIONS), help="X.Y list (default: %(default)s)")
    args = parser.parse_args()
    wheelhouse_dir = args.wheelhouse_dir.resolve()

    def waiting(owner: Owner | None) -> None:
        say(f"waiting for {owner.describe() if owner else 'another process'} to finish {wheelhouse_dir}")

    start = time.perf_counter()
    try:
        progress = wheelhouse_ensure.Progress(log=say, tick=lambda text: say(f"  {text}"), wait=waiting)
        wheelhouse_ensure.remake(wheelhouse_dir, progress, versions=args.versions.split(","))
    except HarnessError as exc:
        say(f"error: {exc}")
        return exc.exit_code
    root = wheelhouse_dir / "benchmarks"
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    print(f"benchmark wheelhouse ready: {root} ({size / 2**20:.1f} MiB, {time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
