"""What a bisect runs at every commit: a suite workload or a script, with its loops and identity."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.measure.runs import workload_mounts
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.pyperformance.benchmarks import Benchmark, read_suite
from pystats_harness.pyperformance.sites import benchmark_data_dir
from pystats_harness.resources import SUITE_DIR

SCRIPT_LOOPS = 10  # default --loops for a workload script (suite workloads: configs/suite.toml)
BENCHMARK_LOOPS = 1  # default --loops for pyperformance:NAME (one call of the timed function)
PYPERFORMANCE = "pyperformance:"


@dataclass(frozen=True)
class Workload:
    """What runs at every commit; ``ident`` is its part of the results-store key."""

    name: str  # as given: a suite workload name or a script path
    target: str  # what run_manual gets (a script as an absolute path)
    loops: int
    ident: str
    benchmark: Benchmark | None = None  # pyperformance:NAME runs this benchmark's manual path

    @property
    def label(self) -> str:
        return Path(self.name).stem if self.name.endswith(".py") else self.name


def _pyperformance(ctx: Context, workload: str, loops: int | None) -> Workload:
    """``pyperformance:NAME``: the benchmark's timed function on the manual path (collect's), N loops."""
    data_dir = benchmark_data_dir(ctx)
    suite = read_suite(data_dir)
    name = workload.removeprefix(PYPERFORMANCE)
    if name not in suite.benchmarks:
        raise ConfigError(f"unknown pyperformance benchmark {name!r}; known: {', '.join(sorted(suite.benchmarks))}")
    bench = suite.benchmarks[name]
    if not bench.directly_callable:
        raise ConfigError(
            f"pyperformance:{name} cannot be bisected: its timed code is not callable directly ({bench.timing.value})"
        )
    digest = hashlib.sha256((SUITE_DIR / "pyperformance_manual.py").read_bytes())
    for file in sorted((data_dir / bench.directory).rglob("*.py")):
        digest.update(file.read_bytes())
    loops = loops or BENCHMARK_LOOPS
    if loops < 1:
        raise ConfigError(f"--loops must be >= 1 (got {loops})")
    ident = f"pyperformance-{suite.version}:{name}:{digest.hexdigest()[:16]}:manual:loops={loops}"
    return Workload(workload, name, loops, ident, bench)


def resolve_workload(workload: str, loops: int | None = None, ctx: Context | None = None) -> Workload:
    """A suite workload (default loops from configs/suite.toml), a ``.py`` script defining run(loops),
    or ``pyperformance:NAME`` (needs ``ctx`` for the wheelhouse)."""
    if workload.startswith(PYPERFORMANCE) and ctx is not None:
        return _pyperformance(ctx, workload, loops)
    workload_mounts(workload)  # validates the name or path (ConfigError)
    digest = hashlib.sha256()
    if workload.endswith(".py"):
        path = Path(workload).resolve()
        digest.update(path.read_bytes())
        target, kind, loops = str(path), f"script:{path.name}", loops or SCRIPT_LOOPS
    else:
        for file in (SUITE_DIR / "workloads" / f"{workload}.py", SUITE_DIR / "manual.py", SUITE_DIR / "common.py"):
            digest.update(file.read_bytes() if file.is_file() else b"")
        target, kind = workload, f"suite:{workload}"
        loops = loops or load_suite().workloads.get(workload, SCRIPT_LOOPS)
    if loops < 1:
        raise ConfigError(f"--loops must be >= 1 (got {loops})")
    return Workload(workload, target, loops, f"{kind}:{digest.hexdigest()[:16]}:manual:loops={loops}")
