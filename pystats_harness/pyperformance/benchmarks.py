"""pyperformance's benchmark suite as data: the MANIFEST, each benchmark's metafile, groups and the
``--benchmarks`` selection (pure: reads a data-files directory, never runs anything).

A benchmark is a MANIFEST row ``name <local>`` (metafile ``bm_<name>/pyproject.toml``) or
``name <local:base>`` (metafile ``bm_<base>/bm_<name>.toml``, sharing ``bm_<base>``'s run script and
requirements). pyperformance's groups: ``default`` (every benchmark in the MANIFEST: its ``[group
default]`` is empty) and one group per tag (``apps``, ``math``, ``serialize`` …). The wheel also ships
benchmark directories the MANIFEST leaves out (1.14.0: barnes_hut, decimal_factorial, decimal_pi,
hg_startup, yaml): they form the group ``unlisted`` and are in ``all`` (pyperformance's ``all`` is
the MANIFEST only), so that ``all`` is every benchmark directory the release ships.
"""

from __future__ import annotations

import enum
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import ConfigError

PYPERFORMANCE_VERSION = "1.14.0"
#: Benchmarks that cannot run outside pyperformance's own runner, and why (reported as skipped).
CANNOT_RUN = {
    "hg_startup": "disabled in pyperformance's MANIFEST: it needs pyperformance's venv to find the hg program",
}


class Timing(enum.StrEnum):
    """How a benchmark's run script hands its timed code to pyperf (read from the script)."""

    TIME_FUNC = "bench_time_func"  # f(loops) timed by the benchmark: callable directly
    FUNC = "bench_func"  # f() called `loops` times by pyperf: callable directly
    ASYNC = "bench_async_func"  # a coroutine run by pyperf's event loop
    COMMAND = "bench_command"  # a subprocess: the hook brackets the wrapper, not the benchmark


@dataclass(frozen=True)
class Benchmark:
    name: str
    directory: str  # "bm_nbody": the run script, its data and requirements.txt
    runscript: str
    extra_opts: tuple[str, ...]
    tags: tuple[str, ...]
    has_requirements: bool
    timing: Timing

    @property
    def directly_callable(self) -> bool:
        """The timed function can be called with `_stats_on(); f(loops); _stats_off()` (manual path)."""
        return self.timing in (Timing.TIME_FUNC, Timing.FUNC)


@dataclass(frozen=True)
class Suite:
    version: str
    benchmarks: Mapping[str, Benchmark]
    groups: Mapping[str, tuple[str, ...]]

    @property
    def directories(self) -> tuple[str, ...]:
        return tuple(sorted({b.directory for b in self.benchmarks.values()}))


_ROW = re.compile(r"^(?P<name>\S+)\s+<local(?::(?P<base>[^>]+))?>$")
_TIMING_ORDER = (Timing.COMMAND, Timing.ASYNC, Timing.TIME_FUNC, Timing.FUNC)


def _manifest_rows(text: str) -> list[tuple[str, str | None]]:
    rows, section = [], ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line
        elif line and section == "[benchmarks]" and not line.startswith("name\t") and line != "name metafile":
            match = _ROW.match(re.sub(r"\s+", " ", line))
            if match:
                rows.append((match["name"], match["base"]))
    return rows


def _timing(script: str) -> Timing:
    for timing in _TIMING_ORDER:
        if re.search(rf"\.{timing.value}\(", script):
            return timing
    return Timing.FUNC


def _metafile(data_dir: Path, name: str, base: str | None) -> tuple[str, Path]:
    if base is None:
        return f"bm_{name}", data_dir / f"bm_{name}" / "pyproject.toml"
    return f"bm_{base}", data_dir / f"bm_{base}" / f"bm_{name}.toml"


def _tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(t for t in re.split(r"[\s,]+", value) if t)
    return tuple(str(t) for t in value) if isinstance(value, list) else ()


def _benchmark(data_dir: Path, name: str, base: str | None) -> Benchmark:
    directory, metafile = _metafile(data_dir, name, base)
    tool = tomllib.loads(metafile.read_text()).get("tool", {}).get("pyperformance", {})
    base_tool = tomllib.loads((data_dir / directory / "pyproject.toml").read_text()).get("tool", {})
    base_tool = base_tool.get("pyperformance", {})
    runscript = str(tool.get("runscript", base_tool.get("runscript", "run_benchmark.py")))
    script = (data_dir / directory / runscript).read_text()
    return Benchmark(
        name=name,
        directory=directory,
        runscript=runscript,
        extra_opts=tuple(str(o) for o in tool.get("extra_opts", ())),
        tags=_tags(tool.get("tags", base_tool.get("tags", ""))),
        has_requirements=(data_dir / directory / "requirements.txt").is_file(),
        timing=_timing(script),
    )


def read_suite(data_dir: Path, version: str = PYPERFORMANCE_VERSION) -> Suite:
    """The suite in pyperformance's ``data-files/benchmarks`` directory."""
    manifest = data_dir / "MANIFEST"
    if not manifest.is_file():
        raise ConfigError(
            f"{data_dir} has no pyperformance MANIFEST; the wheelhouse is incomplete (run scripts/bootstrap.sh)"
        )
    benchmarks = {name: _benchmark(data_dir, name, base) for name, base in _manifest_rows(manifest.read_text())}
    listed = tuple(benchmarks)
    listed_dirs = {b.directory for b in benchmarks.values()}
    for path in sorted(data_dir.glob("bm_*/pyproject.toml")):
        if path.parent.name not in listed_dirs:
            tool = tomllib.loads(path.read_text()).get("tool", {}).get("pyperformance", {})
            name = str(tool.get("name", path.parent.name.removeprefix("bm_")))
            benchmarks[name] = _benchmark(data_dir, path.parent.name.removeprefix("bm_"), None)
    groups: dict[str, tuple[str, ...]] = {"all": tuple(benchmarks), "default": listed}
    groups["unlisted"] = tuple(n for n in benchmarks if n not in listed)
    for b in benchmarks.values():
        for tag in b.tags:
            groups[tag] = (*groups.get(tag, ()), b.name)
    return Suite(version, benchmarks, groups)


def select(suite: Suite, spec: str) -> tuple[Benchmark, ...]:
    """``default`` | ``all`` | ``a,b,-c`` (names or groups; ``-x`` removes; only removals start from
    ``default``), in MANIFEST order; an unknown name is one line listing the known ones (exit 2)."""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise ConfigError("--benchmarks is empty; pass default, all, a group or names like nbody,richards,-go")
    unknown = [
        i.lstrip("-") for i in items if i.lstrip("-") not in suite.benchmarks and i.lstrip("-") not in suite.groups
    ]
    if unknown:
        raise ConfigError(
            f"unknown benchmark {', '.join(unknown)} in --benchmarks; known groups: {', '.join(sorted(suite.groups))}; "
            f"known benchmarks: {', '.join(sorted(suite.benchmarks))}"
        )
    chosen: set[str] = set() if any(not i.startswith("-") for i in items) else set(suite.groups["default"])
    for item in items:
        names = suite.groups.get(item.lstrip("-"), (item.lstrip("-"),))
        if item.startswith("-"):
            chosen.difference_update(names)
        else:
            chosen.update(names)
    if not chosen:
        raise ConfigError(f"--benchmarks {spec!r} selects no benchmark")
    return tuple(b for name, b in suite.benchmarks.items() if name in chosen)
