"""How benchmarks are collected, as ``invoke collect`` and ``invoke diff`` both take it: one typed option
set (:class:`CollectOptions`), checked in one order by both, the cheap checks first.

1. :meth:`CollectOptions.fixed_loops`: ``--jobs``, ``--processes`` and the ``--loops-file`` read, before
   any revision is resolved;
2. :meth:`CollectOptions.recipe`: a revision resolved once in this machine's mirror (exit 3), with the
   patches and configuration (an unknown patch id, a configuration the revision cannot build: refused);
3. :meth:`CollectOptions.chosen`: only then the benchmarks, whose names need the suite (the benchmark
   wheelhouse, made the first time: minutes that a mistyped revision must not cost), and the loops file
   checked to cover them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.builder.configurations import ConfigName
from pystats_harness.builder.recipe import Recipe
from pystats_harness.collect import driver
from pystats_harness.collect import loops as loops_file
from pystats_harness.infra.context import Context
from pystats_harness.pyperformance.benchmarks import Benchmark, Suite, read_suite, select
from pystats_harness.pyperformance.sites import benchmark_data_dir


@dataclass(frozen=True)
class CollectOptions:
    """The patches and configuration to build with, the benchmarks (``default``, a group, names), how many
    run at a time and with how many pyperf processes, a loops file (None: calibrate) and the manual path."""

    config: ConfigName
    patches: str = "auto"
    benchmarks: str = "default"
    jobs: int = 2
    processes: int = 2
    loops_file: Path | None = None
    manual: bool = True

    def fixed_loops(self) -> Mapping[str, int]:
        """The numbers checked and the loops file read (empty without one): nothing here needs a revision."""
        driver.check_request(self.jobs, self.processes, None)
        return loops_file.read(self.loops_file) if self.loops_file else {}

    def recipe(self, ctx: Context, rev: str | None) -> Recipe:
        """``rev`` resolved in this machine's mirror with these patches and this configuration."""
        return Recipe.resolve(ctx, rev, self.patches, self.config)

    def chosen(self, ctx: Context, fixed: Mapping[str, int]) -> tuple[Suite, tuple[Benchmark, ...]]:
        """The suite and the benchmarks chosen from it; a loops file must give loops for each."""
        suite = read_suite(benchmark_data_dir(ctx))
        chosen = tuple(select(suite, self.benchmarks))
        if self.loops_file:
            loops_file.check_covers(fixed, [b.name for b in chosen], self.loops_file)
        return suite, chosen

    def request(self, chosen: tuple[Benchmark, ...], fixed: Mapping[str, int], out: Path) -> driver.Request:
        """The driver's request for one collect into ``out``."""
        return driver.Request(chosen, self.jobs, self.processes, fixed, out, self.manual)
