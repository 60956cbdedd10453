"""A diff's result as one value (:class:`DiffResult`): both collects, the comparison, each benchmark's
verdicts on both sides, the head script's rendering and where every file is, so that recording a run
(a results store) is one call with it. How it ends (:meth:`DiffResult.exit_error`) is decided here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect.compare import Change, SuiteComparison, Thresholds
from pystats_harness.collect.one import Outcome
from pystats_harness.collect.run import CollectRun
from pystats_harness.collect.trust import Verdict
from pystats_harness.diff.errors import DiffFlagged, DiffNotCompared, DiffUntrusted
from pystats_harness.diff.work import Rendered

#: Verdicts whose numbers a diff reads without a mark: every check ran and held.
TRUSTWORTHY = frozenset({Verdict.TRUSTED, Verdict.APPROXIMATE, Verdict.BOUNDED})
#: Verdicts that make a side's collect fail (collect's exit 25, 26, 31), and so a diff exit 39.
FAILING = frozenset({Verdict.FAILED, Verdict.UNTRUSTED, Verdict.LOSSY})
#: Verdicts of a benchmark that did not run on a side: it has no numbers there to compare (a diff exit 40).
NOT_RUN = frozenset({Verdict.FAILED, Verdict.SKIPPED})


@dataclass(frozen=True)
class Verdicts:
    """One benchmark's verdict on each side (None: not selected there)."""

    name: str
    base: Outcome | None
    head: Outcome | None

    def sides(self) -> tuple[tuple[str, Outcome | None], ...]:
        return (("base", self.base), ("head", self.head))

    @property
    def trusted(self) -> bool:
        """Trustworthy on both sides: its rows carry no mark."""
        return all(o is not None and o.verdict in TRUSTWORTHY for _, o in self.sides())

    def failing(self, strict: bool) -> bool:
        """Not trusted in the sense of collect's exit codes (``strict``: partial too)."""
        bad = FAILING | ({Verdict.PARTIAL} if strict else set())
        return any(o is None or o.verdict in bad for _, o in self.sides())

    @property
    def compared(self) -> bool:
        """Ran on both sides: its numbers are compared (whatever their trust)."""
        return all(o is not None and o.verdict not in NOT_RUN for _, o in self.sides())

    def why_not_compared(self) -> str:
        """``base: skipped (needs tomli: …); head: skipped (…)``: each side it did not run on, and why."""
        return "; ".join(f"{side}: {_why_not_run(o)}" for side, o in self.sides() if o is None or o.verdict in NOT_RUN)

    def mark(self) -> str:
        """``head: untrusted`` (the sides whose verdict is not trustworthy), "" when trusted on both."""
        return ", ".join(f"{side}: {o.verdict.value if o else 'absent'}" for side, o in self.sides() if not _good(o))


def _why_not_run(o: Outcome | None) -> str:
    if o is None:
        return "not selected"
    reason = o.reason.removeprefix("skipped: ")
    return f"{o.verdict.value} ({reason})" if reason else o.verdict.value


def _good(o: Outcome | None) -> bool:
    return o is not None and o.verdict in TRUSTWORTHY


@dataclass(frozen=True)
class DiffPaths:
    """The diff's folder and its files: each side's collect output, the report, its JSON, the rendering."""

    out: Path

    @property
    def base(self) -> Path:
        return self.out / "base"

    @property
    def head(self) -> Path:
        return self.out / "head"

    @property
    def report(self) -> Path:
        return self.out / "report.md"

    @property
    def json(self) -> Path:
        return self.out / "report.json"

    @property
    def summarize(self) -> Path:
        return self.out / "summarize_stats.md"


@dataclass(frozen=True)
class DiffResult:
    """Everything a diff found. ``loops``: what each benchmark ran on both sides; ``loops_source``: where
    they came from (the base's calibration or a ``--loops-file``)."""

    base_recipe: Recipe
    head_recipe: Recipe
    base: CollectRun
    head: CollectRun
    comparison: SuiteComparison
    verdicts: tuple[Verdicts, ...]
    rendered: Rendered
    paths: DiffPaths
    loops: Mapping[str, int]
    loops_source: str
    processes: int
    thresholds: Thresholds
    strict: bool = False
    same_build: bool = False

    @property
    def flagged(self) -> tuple[Change, ...]:
        return self.comparison.interesting

    def verdicts_of(self, name: str) -> Verdicts:
        return next((v for v in self.verdicts if v.name == name), Verdicts(name, None, None))

    @property
    def not_trusted(self) -> tuple[Verdicts, ...]:
        """The benchmarks not trusted on a side, the ones that fail that side's collect first."""
        shown = [v for v in self.verdicts if not v.trusted]
        return tuple(sorted(shown, key=lambda v: not v.failing(self.strict)))

    @property
    def not_compared(self) -> tuple[Verdicts, ...]:
        """The requested benchmarks that did not run on a side: nothing is said of them but that."""
        return tuple(v for v in self.verdicts if not v.compared)

    def exit_error(self) -> DiffNotCompared | DiffUntrusted | DiffFlagged | None:
        """40 when a requested benchmark did not run on a side (it wins: "unchanged" cannot be said of it),
        39 when a benchmark fails either side's collect, 38 when a change is flagged, else None."""
        absent = self.not_compared
        if absent:
            named = "; ".join(f"{v.name} ({v.why_not_compared()})" for v in absent)
            return DiffNotCompared(
                f"{len(absent)} of {len(self.verdicts)} benchmark(s) not compared: {named}; the rest is compared "
                f"and written ({self.paths.report})"
            )
        failing = [v for v in self.verdicts if v.failing(self.strict)]
        if failing:
            named = "; ".join(f"{v.name} ({v.mark()})" for v in failing)
            return DiffUntrusted(
                f"{len(failing)} benchmark(s) not trusted: {named}; the comparison is written and marks them "
                f"({self.paths.report})"
            )
        if self.flagged:
            benchmarks = sorted({c.benchmark for c in self.flagged})
            return DiffFlagged(
                f"{len(self.flagged)} interesting change(s) flagged in {', '.join(benchmarks)} ({self.paths.report})"
            )
        return None

    @property
    def exit_code(self) -> int:
        error = self.exit_error()
        return 0 if error is None else error.exit_code
