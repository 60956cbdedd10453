"""Do a build's counters hold when more than one thread counts?  The threaded canary, judged.

``suite/thread_canary.py`` runs T threads of a canary kernel inside one bracket, for K in 0, N, 2N,
each T and several repeats, one process each.  Judged here (pure, over the dump files):

exact     for every repeat and T: corrected family counts of ``2N - N`` equal ``T * N * per_iteration``
          (the kernel's ``dis`` table), and pair and call counters of ``2N - N`` equal ``T`` times
          those of one thread in the same repeat (``D(T) == T * D(1)``).  Object, GC and
          specialization counters are not T-times linear and are not compared (``NOT_COMPARED``).
counted   per family, T and repeat: ``(counts(T, 2N) - counts(T, 0)) / (T * 2N * per_iteration)``,
          the share of the threads' executions that the dump holds (``counts(T, 0)``: starting and
          joining T threads on their own).  On a build whose increments race, below 100 %.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.measure.runs import canary_table, run_thread_canary
from pystats_harness.measure.suiteconfig import ThreadCanary
from pystats_harness.stats.collection import collect
from pystats_harness.stats.names import NameTables
from pystats_harness.suite import canaries as _canaries
from pystats_harness.suite import canary_counts as _canary_counts
from pystats_harness.suite import thread_canary as _script

Key = tuple[int, int, int]  # (threads, K, repeat)

#: What the linear check leaves out, with the reason (reported with every verdict).
NOT_COMPARED = (
    "not compared: objects.*, gc.*, opcode.*.specialization.* (freelists, GC thresholds and adaptive "
    "counters are shared between threads: not T times one thread's)"
)


@dataclass(frozen=True)
class Counted:
    """What T threads' dump holds of one family's executions, in one repeat."""

    threads: int
    repeat: int
    family: str
    expected: int
    counted: int

    @property
    def share(self) -> Fraction:
        return Fraction(self.counted, self.expected)


@dataclass(frozen=True)
class ThreadVerdict:
    plan: ThreadCanary
    mismatches: tuple[dict[str, Any], ...] = ()
    counted: tuple[Counted, ...] = ()
    cannot: str = ""  # why the canary could not run or be counted here (nothing judged)

    @property
    def exact(self) -> bool:
        return not self.cannot and not self.mismatches

    def worst(self) -> Counted | None:
        """The family, T and repeat whose share is furthest from 100 %."""
        return max(self.counted, key=lambda c: (abs(c.share - 1), c.threads), default=None)

    def alive_missing(self) -> bool:
        """Every family of every run with more than one thread counted the share of the threads that had
        exited (the even ones, ``thread_canary``), to 0.1 %: the odd ones, alive at the dump, are not in it
        (3.15's free-threaded build: a thread's stats are merged when it exits, and at exit the live threads
        are dropped first). Within 0.1 %, not exactly: a thread quickens its own copy of the bytecode there,
        and each copy's first JUMP_BACKWARD and RESUME count once more (3 in 320,000 with 8 threads)."""
        many = [c for c in self.counted if c.threads > 1]
        near = Fraction(1, 1000)
        return bool(many) and all(abs(c.share - Fraction(_script.exited(c.threads), c.threads)) <= near for c in many)

    def worst_by_threads(self) -> dict[int, dict[str, Fraction]]:
        """{T: {family: share furthest from 100 % over the repeats}}."""
        out: dict[int, dict[str, Fraction]] = {}
        for c in self.counted:
            row = out.setdefault(c.threads, {})
            if c.family not in row or abs(c.share - 1) > abs(row[c.family] - 1):
                row[c.family] = c.share
        return out

    def plain(self) -> str:
        """What ran, in a few words: ``threaded canary calls with 1/2/4/8 threads, 5 runs each``."""
        ts = "/".join(str(t) for t in self.plan.thread_counts)
        return f"threaded canary {self.plan.kernel} with {ts} threads, {self.plan.repeats} runs each"

    def line(self) -> str:
        """One line: exact, or the worst loss found (the family, T, share and over how many runs)."""
        p = self.plan
        if self.cannot:
            return self.cannot
        if self.exact:
            exact = self.plain().replace(" with ", " exact with ", 1)
            return f"{exact} (families: 2N - N == T x N x dis; pairs by family and calls: T x one thread's); {NOT_COMPARED}"
        if self.alive_missing():
            shares = ", ".join(sorted({f"{_script.exited(t)}/{t}" for t in p.thread_counts if t > 1}))
            return (
                f"the threads still alive at the dump are missing from it: every family counted the exited "
                f"threads' share ({shares} threads exited, to 0.1 %) in all {p.repeats} runs: their stats are not merged"
            )
        worst = self.worst()
        if worst is not None and worst.share != 1:
            return (
                f"{worst.family} counted {float(worst.share):.1%} of its executions with {worst.threads} threads; "
                f"worst of {p.repeats} runs ({len(self.mismatches)} count(s) not exact)"
            )
        m = self.mismatches[0]
        return (
            f"{len(self.mismatches)} count(s) not exact under threads, e.g. {m['counter']} with {m['threads']} threads"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.plan.kernel,
            "n": self.plan.n,
            "repeats": self.plan.repeats,
            "thread_counts": list(self.plan.thread_counts),
            "exact": self.exact,
            "cannot": self.cannot,
            "line": self.line(),
            "not_compared": NOT_COMPARED,
            "counted": {
                str(t): {f: float(s) for f, s in sorted(row.items())} for t, row in self.worst_by_threads().items()
            },
            "mismatches": list(self.mismatches),
        }


def dump_files(paths: list[Path], kernel: str) -> dict[Key, Path]:
    """The sweep's renamed dumps of ``kernel`` by (T, K, repeat); other files (the sweep's own) left out."""
    out = {}
    for path in paths:
        parsed = _script.parse_label(path.name)
        if parsed is not None and parsed[0] == kernel:
            out[parsed[1:]] = path
    return out


def _families(path: Path, table: Mapping[str, Any]) -> dict[str, int]:
    return dict(_canaries.family_counts(_canaries.parse_dump(path.read_text()), table))


def _linear(path: Path, names: NameTables | None, table: Mapping[str, Any]) -> dict[str, int]:
    """Call counters, and pair counters by family: ``pair.F.G`` sums every pair of a form of F followed
    by a form of G, and ``pair.F.F`` leaves out the re-dispatch after each specialization attempt (and
    after each miss, where the table says a miss is counted twice), as the family counts do."""
    counters = {k: int(v) for k, v in collect([path], names, {}).counters.items()}
    families = table.get("families", {})
    out = {k: v for k, v in counters.items() if k.startswith("calls.")}
    for key, v in counters.items():
        if key.startswith("pair."):
            _, a, b = key.split(".", 2)
            pair = f"pair.{families.get(a, a)}.{families.get(b, b)}"
            out[pair] = out.get(pair, 0) + v
    misses: tuple[str, ...] = ("miss",) if table.get("miss_double_counted", False) else ()
    for family in set(families.values()):
        attempts = ("success", "failure") if _canary_counts.attempts_counted_twice(table, family) else ()
        twice = sum(counters.get(f"opcode.{family}.specialization.{e}", 0) for e in attempts + misses)
        if twice:
            out[f"pair.{family}.{family}"] = out.get(f"pair.{family}.{family}", 0) - twice
    return out


def _difference(high: Mapping[str, int], low: Mapping[str, int]) -> dict[str, int]:
    return {k: high.get(k, 0) - low.get(k, 0) for k in set(high) | set(low) if high.get(k, 0) != low.get(k, 0)}


def judge(
    files: Mapping[Key, Path], plan: ThreadCanary, table: Mapping[str, Any], names: NameTables | None
) -> ThreadVerdict:
    """The verdict over every (T, K, repeat) dump of ``plan`` (see the module docstring)."""
    canary = table["canaries"].get(plan.kernel, {"cannot_count": f"no canary {plan.kernel} in the table"})
    if "cannot_count" in canary:
        return ThreadVerdict(plan, cannot=f"threaded canary not counted: {canary['cannot_count']}")
    missing = [k for k in _keys(plan) if k not in files]
    if missing:
        t, k, r = missing[0]
        return ThreadVerdict(plan, cannot=f"threaded canary left no dump for {t} thread(s), K={k}, run {r + 1}")
    want = _canaries.expected_family_counts(canary["per_iteration"], table)
    n, mismatches, counted = plan.n, [], []
    for r in range(plan.repeats):
        one_thread: dict[str, int] | None = None
        for t in plan.thread_counts:
            low, high = files[(t, n, r)], files[(t, 2 * n, r)]
            for m in _canaries.compare(
                _canaries.parse_dump(low.read_text()),
                _canaries.parse_dump(high.read_text()),
                t * n,
                canary["per_iteration"],
                table,
            ):
                mismatches.append({"threads": t, "repeat": r, "counter": f"family.{m['family']}.execution_count", **m})
            zero, full = _families(files[(t, 0, r)], table), _families(high, table)
            counted += [Counted(t, r, f, t * 2 * n * w, full.get(f, 0) - zero.get(f, 0)) for f, w in want.items() if w]
            linear = _difference(_linear(high, names, table), _linear(low, names, table))
            if t == 1:
                one_thread = linear
            elif one_thread is not None:
                mismatches += _not_linear(linear, one_thread, t, r)
    return _one_thread_holds(ThreadVerdict(plan, tuple(mismatches), tuple(counted)))


def _one_thread_holds(verdict: ThreadVerdict) -> ThreadVerdict:
    """One thread alone must be exact: neither a lost update (two threads counting at once) nor a wrong
    merge (one thread's value kept) changes its counts. Where it is not, the canary's expectation does
    not hold on this revision, and nothing is judged of threads (the counts stay in the record)."""
    alone = [c for c in verdict.counted if c.threads == 1 and c.share != 1]
    if not alone and not any(m["threads"] == 1 for m in verdict.mismatches):
        return verdict
    why = (
        f"{alone[0].family} counted {float(alone[0].share):.1%} with 1 thread in run {alone[0].repeat + 1}"
        if alone
        else "a count of one thread is not exact"
    )
    cannot = f"threaded canary not judged: one thread alone is not exact ({why}): its expectation does not hold here"
    return ThreadVerdict(verdict.plan, verdict.mismatches, verdict.counted, cannot)


def _not_linear(linear: Mapping[str, int], one: Mapping[str, int], t: int, r: int) -> list[dict[str, Any]]:
    return [
        {"threads": t, "repeat": r, "counter": k, "expected": t * one.get(k, 0), "observed": linear.get(k, 0)}
        for k in sorted(set(linear) | set(one))
        if linear.get(k, 0) != t * one.get(k, 0)
    ]


def _keys(plan: ThreadCanary) -> list[Key]:
    return [(t, k, r) for r in range(plan.repeats) for t in plan.thread_counts for k in (0, plan.n, 2 * plan.n)]


def measure(ctx: Context, entry: CacheEntry, plan: ThreadCanary, table: Mapping[str, Any]) -> ThreadVerdict:
    """Run the threaded canary on ``entry`` (one container) and judge it; a run that fails is ``cannot``."""
    if plan.kernel in table.get("canaries", {}) and "cannot_count" in table["canaries"][plan.kernel]:
        return judge({}, plan, table, None)
    try:
        run = run_thread_canary(
            ctx, entry, plan.kernel, plan.n, plan.repeats, ",".join(str(t) for t in plan.thread_counts)
        )
    except RunFailed as exc:
        return ThreadVerdict(plan, cannot=f"threaded canary did not run: {exc}")
    refused = [line for line in run.stdout.splitlines() if '"cannot_run"' in line]
    if refused:
        return ThreadVerdict(plan, cannot=f"threaded canary not run: {refused[0]}")
    return judge(dump_files(list(run.stats_files), plan.kernel), plan, table, entry.names())


_HELD: dict[tuple[str, ThreadCanary], ThreadVerdict] = {}
_HELD_LOCK = threading.Lock()


def held(ctx: Context, entry: CacheEntry, plan: ThreadCanary) -> ThreadVerdict:
    """The threaded canary's verdict on ``entry``, measured once per build and plan in this process (a
    collect asks for it when a benchmark ran threads; a cluster worker once per build it measures)."""
    with _HELD_LOCK:
        if (entry.key, plan) not in _HELD:
            _HELD[(entry.key, plan)] = measure(ctx, entry, plan, json.loads(canary_table(ctx, entry)))
        return _HELD[(entry.key, plan)]
