"""What each path executes inside its brackets besides the benchmark, measured by the null benchmark.

pyperf's worker runs its hook's ``__enter__``/``__exit__``, its task closure and (for ``bench_func``)
its own ``for`` loop inside the bracket; the manual runner runs its own bracket code. A null
benchmark of the same shape (``kind:nargs``) and loops per timed function, run through the same
runner in the same interpreter, counts exactly that, so that

    automated(bench)  ==  processes x manual(bench) + (automated(null) - processes x manual(null))

counter by counter for a deterministic benchmark (compared this way round, a declared allowance is
relative to the benchmark's own counts), and ``automated(bench) - automated(null)`` is the
benchmark's collection without the machinery around it (its "net" counts). Each (shape, loops,
processes) is measured once per collect, whichever benchmark asks first; the others wait for it.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.builder.cache import BuildInfo, CacheEntry
from pystats_harness.collect import exactness, trust
from pystats_harness.errors import RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.pyperformance import runs
from pystats_harness.stats.collection import collect
from pystats_harness.stats.dumps import DumpResult, parse_files
from pystats_harness.stats.exact import executed

Key = tuple[str, int, int]  # shape, loops, processes


@dataclass(frozen=True)
class Null:
    """The null benchmark's dumps on both paths (kept where it was measured)."""

    shape: str
    loops: int
    processes: int
    automated: tuple[Path, ...]
    manual: tuple[Path, ...]


class NullRuns:
    """The null benchmark runs of one collect, by (shape, loops, processes), each measured once."""

    def __init__(self, ctx: Context, entry: CacheEntry, place: runs.Place, root: Path) -> None:
        self._ctx, self._entry, self._place, self._root = ctx, entry, place, root
        self._lock = threading.Lock()
        self._futures: dict[Key, Future[Null]] = {}

    def get(self, shape: str, loops: int, processes: int) -> Null:
        """The null of this shape; raises RunFailed (the run's error) when it could not run."""
        key = (shape, loops, processes)
        with self._lock:
            future, mine = self._futures.get(key), False
            if future is None:
                future, mine = Future(), True
                self._futures[key] = future
        if mine:
            try:
                future.set_result(self._measure(*key))
            except BaseException as exc:  # whoever waits sees it too; Ctrl-C or a harness error goes on up
                future.set_exception(exc)
                if not isinstance(exc, RunFailed):
                    raise
        return future.result()

    def _measure(self, shape: str, loops: int, processes: int) -> Null:
        into = self._root / f"{shape.replace(':', '')}-{loops}x{processes}"
        done = runs.null(
            self._ctx, self._entry, self._place, into / "pyperf", shape=shape, loops=loops, processes=processes
        )
        automated = keep(done.automated.dumps, into / "automated")
        manual = keep(done.manual.dumps, into / "manual")
        return Null(shape, loops, processes, automated, manual)


def keep(dumps: Sequence[Path], into: Path) -> tuple[Path, ...]:
    into.mkdir(parents=True, exist_ok=True)
    kept = []
    for i, dump in enumerate(dumps):
        target = into / f"{i:03d}-{dump.name}"
        shutil.copyfile(dump, target)
        kept.append(target)
    return tuple(kept)


def subtract(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    """``a - b`` counter by counter (exact integers; counters equal in both are dropped when zero)."""
    out = {name: a.get(name, 0) - b.get(name, 0) for name in set(a) | set(b)}
    return {name: value for name, value in out.items() if value or name in a}


def add(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    return {name: a.get(name, 0) + b.get(name, 0) for name in set(a) | set(b)}


def scaled(a: Mapping[str, int], factor: int) -> dict[str, int]:
    return {name: value * factor for name, value in a.items()}


def counters(entry: BuildInfo, dumps: Sequence[Path]) -> dict[str, int]:
    """The named counters of ``dumps`` summed (empty when there are none)."""
    if not dumps:
        return {}
    return {k: int(v) for k, v in collect(list(dumps), entry.names(), entry.stats_metadata()).counters.items()}


def net_dump(dumps: Sequence[Path], null_dumps: Sequence[Path]) -> DumpResult:
    """The raw keys of ``dumps`` less those of ``null_dumps`` (for the summarize_stats export)."""
    total, null = parse_files(list(dumps)), parse_files(list(null_dumps))
    raw = {key: total.raw.get(key, 0) - null.raw.get(key, 0) for key in set(total.raw) | set(null.raw)}
    return DumpResult(total.sources, raw, total.counted_lines, total.warnings)


def leak_counts(
    automated: Mapping[str, int],
    null_automated: Mapping[str, int],
    manual: Mapping[str, int],
    null_manual: Mapping[str, int],
    processes: int,
    functions: int,
    shapes: Sequence[str],
    shares: Mapping[str, exactness.MachineryShare],
) -> trust.LeakCounts:
    """What the leakage check compares: the automated counts (every worker), and what the manual path
    predicts for them, ``processes`` x manual + (automated(null) - ``processes`` x manual(null)), with
    the machinery bound of the timed functions' ``shapes`` (``kind:nargs``)."""
    by_hand, runner = scaled(manual, processes), scaled(null_manual, processes)
    predicted = add(by_hand, subtract(null_automated, runner))
    machinery = executed(null_automated) + executed(runner)
    bound = exactness.bound_for([s.split(":")[0] for s in shapes], machinery, shares)
    parts = (null_automated, by_hand, runner)
    return trust.LeakCounts(dict(automated), predicted, processes, machinery, parts, bound, functions)
