"""A diff, typed at the edge (:meth:`DiffRequest.parse`) and shown as a plan (:func:`describe`, ``--dry-run``).

Checked before any build, in collect's order (:mod:`~pystats_harness.collect.options`, the same option
set): the numbers (``--jobs``, ``--processes``, ``--min-change``), a ``--loops-file`` and the output
directory; then both revisions resolved once in this machine's mirror (exit 3), both builds planned (an
unknown patch id, a configuration the revision cannot build: refused here); only then the benchmarks,
whose names need the suite.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.builder.obtain import cached, plan_for
from pystats_harness.builder.plan import BuildPlan, to_text
from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect.compare import Thresholds
from pystats_harness.collect.options import CollectOptions
from pystats_harness.collect.run import CollectRequest
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.pyperformance.benchmarks import Benchmark, Suite
from pystats_harness.reports import output_folder

#: The sides of a diff, in the order they run; each side's collect output is this folder of the diff's.
SIDES = ("base", "head")
#: What a diff folder holds (a rerun with the same ``--out`` replaces them; anything else is refused).
FILES = frozenset({*SIDES, "report.md", "report.json", "summarize_stats.md"})


@dataclass(frozen=True)
class DiffRequest:
    """Both recipes and their plans, the suite and the chosen benchmarks, how each side runs (jobs,
    processes, the manual path), the loops fixed by ``--loops-file`` (empty: the base calibrates and the
    head runs the base's), the output directory, ``--strict`` and the interesting-change thresholds."""

    base: Recipe
    head: Recipe
    plans: tuple[BuildPlan, BuildPlan]
    suite: Suite
    benchmarks: tuple[Benchmark, ...]
    options: CollectOptions
    loops: Mapping[str, int]
    loops_source: Path | None
    out: Path
    strict: bool = False
    thresholds: Thresholds = field(default_factory=Thresholds)

    @property
    def same_build(self) -> bool:
        """Base and head are one build (the same plan key): it is built once."""
        return self.plans[0].key == self.plans[1].key

    def collect_request(self, side: str, loops: Mapping[str, int]) -> CollectRequest:
        """The collect of ``side`` (``base`` or ``head``) into ``<out>/<side>``, with ``loops`` fixed."""
        recipe = self.base if side == "base" else self.head
        return CollectRequest(recipe, self.suite, self.options.request(self.benchmarks, loops, self.out / side))

    @classmethod
    def parse(
        cls,
        ctx: Context,
        *,
        base: str | None,
        head: str | None,
        options: CollectOptions,
        out: str | None,
        min_change: float | None,
        strict: bool = False,
    ) -> DiffRequest:
        fixed = options.fixed_loops()
        thresholds = check_min_change(min_change)
        out_path = check_out(Path(out).resolve()) if out else None
        if not base or not head:
            missing = " and ".join(f"--{n}" for n, v in (("base", base), ("head", head)) if not v)
            raise ConfigError(f"diff needs {missing}: the two revisions to compare, e.g. --base v3.12.0 --head v3.13.5")
        recipes = options.recipe(ctx, base), options.recipe(ctx, head)
        plans = plan_for(ctx, recipes[0]), plan_for(ctx, recipes[1])
        label = f"{recipes[0].commit.rev}-{recipes[1].commit.rev}"
        folder = output_folder(out_path, ctx.settings.paths.diff_outputs, label, options.config)
        suite, chosen = options.chosen(ctx, fixed)
        source = options.loops_file.resolve() if options.loops_file else None
        return cls(*recipes, plans, suite, chosen, options, fixed, source, folder, strict, thresholds)


def check_min_change(value: float | None) -> Thresholds:
    """``--min-change``: the ratio move and the relative count change that flag (compare's default when None)."""
    if value is None:
        return Thresholds()
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"--min-change must be a fraction above 0, e.g. 0.05 (got {value})")
    return Thresholds(ratio=value, count=value)


def check_out(out: Path) -> Path:
    """``--out`` is new, empty, or an earlier diff's folder (replaced); anything else is refused."""
    if out.exists() and (not out.is_dir() or {p.name for p in out.iterdir()} - FILES):
        raise ConfigError(f"--out {out} exists and is not a diff output; choose a new directory")
    return out


def describe(ctx: Context, request: DiffRequest) -> str:
    """The plan as ``--dry-run`` prints it: both builds (cached or to build), the benchmarks, where the
    loops come from, how each side runs, and the output directory."""
    sides = []
    for side, plan in zip(SIDES, request.plans, strict=True):
        if side == "head" and request.same_build:
            sides.append("head: the same build as the base (built once, collected twice)")
            continue
        text = to_text(plan, cached=cached(ctx, plan) is not None)
        sides.append(f"{side}:\n" + "\n".join(f"  {line}" for line in text.splitlines()))
    if request.loops_source:
        loops = f"both sides run the loops of {request.loops_source}"
    else:
        loops = "calibrated on the base; the head runs the base's (base/loops.json)"
    t = request.thresholds
    return "\n".join(
        [
            *sides,
            f"benchmarks {', '.join(b.name for b in request.benchmarks)} (pyperformance {request.suite.version})",
            f"loops      {loops}",
            f"runs       {request.options.processes} pyperf processes per benchmark, {request.options.jobs} benchmarks"
            " at a time" + ("" if request.options.manual else "; no manual path (verdicts partial)"),
            f"flags      a hit/miss/deopt ratio moving {t.ratio * 100:.0f} points, a count per loop changing {t.count:.0%}",
            f"output     {request.out} (base/, head/, report.md, report.json, summarize_stats.md)",
        ]
    )
