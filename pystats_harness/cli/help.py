"""The options of every task, with their help (tasks.py declares the tasks; invoke shows this)."""

from __future__ import annotations

MIRROR: dict[str, str] = {"remote": "URL or local path to fetch from (default: setting pystats.mirror_remote)"}

IMPORT_RELEASE: dict[str, str] = {"tarball": "a CPython release tarball (Python-X.Y.Z.tar.xz or Debian's .orig.tar.*)"}

IMAGE: dict[str, str] = {"bootstrap": "make the base image with debootstrap + import (no registry needed)"}

BUILD: dict[str, str] = {
    "rev": "revision: sha, short sha, tag, branch or main~3 (default: setting pystats.default_rev)",
    "patches": "auto (default), none, or a comma-separated list of change ids",
    "dry_run": "print the plan (sha, key, cache hit, image, flags) and do nothing",
    "verbose": "stream every build log line",
}

RUN: dict[str, str] = {
    "rev": "revision of a cached build (default: setting pystats.default_rev)",
    "patches": "the --patches the build was made with (default auto)",
    "no_stats_dir": "run without /tmp/py_stats (dumps then go to stderr)",
}

STATS: dict[str, str] = {
    "directory": "a directory of pystats dump files (*.txt), e.g. a run's py_stats dir",
    "rev": "the revision whose cached build made the dumps (names 3.11/3.12 opcode numbers)",
    "patches": "the --patches that build was made with (default auto)",
    "json": "write the collection (schema pystats-harness/1) here",
    "markdown": "write a Markdown summary here",
    "loops": "divide every counter by this number of benchmark loops",
    "lenient": "skip malformed lines with a warning instead of failing",
    "summarize_json": "also write the summarize_stats.py JSON (3.13 shape, opcodes named; raw counts) here; needs --rev",
}

COMPARE: dict[str, str] = {
    "base": "base collection JSON (from invoke stats --json), or a base `invoke collect` output directory",
    "head": "head collection JSON, or a head `invoke collect` output directory",
    "plot": "two collect outputs: write a heatmap PNG (benchmarks x families, change of hit ratio) here",
    "json": "write the comparison as JSON here",
    "markdown": "write a Markdown table (pasteable into a CPython issue) here",
    "threshold": "hide counters whose relative change is below this fraction (e.g. 0.05); for two collect outputs: flag ratio moves and relative count changes of at least this (default 0.10 and 0.25)",
    "family": "compare family totals (base + specialized forms) instead of single opcodes",
    "limit": "rows to show (default 50)",
}

PATCHES: dict[str, str] = {
    "rev": "revision (default: setting pystats.default_rev)",
    "patches": "auto (default), none, or ID,ID",
}

VERIFY: dict[str, str] = {
    "rev": "revision of a cached build (default: setting pystats.default_rev)",
    "patches": "the --patches it was built with",
}

VALIDATE: dict[str, str] = {
    "rev": "revision (default: setting pystats.default_rev); built first if not cached",
    "patches": "auto (default), none, or ID,ID",
    "workloads": "comma-separated suite workloads (default: all in configs/suite.toml); isolation adds a "
    "partner from the suite when fewer than two are chosen",
    "jobs": "parallel containers (default 2); isolation starts its two to four workloads at once regardless",
    "out": "directory for validation.json, validation.md and deviation.png",
    "require_baseline": "fail (exit 24) when no baseline is recorded for this Python version; without it the "
    "baselines step is skipped for such versions (every development commit)",
    "strict": "fail (exit 19) when a step is partial (canaries that cannot be counted statically on this "
    "revision); without it a partial step is reported, not fatal",
}

BASELINE: dict[str, str] = {
    "rev": "revision (default: setting pystats.default_rev); built first if not cached",
    "patches": "auto (default), none, or ID,ID",
    "workloads": "comma-separated suite workloads (default: all)",
    "jobs": "parallel containers (default 2)",
}

BISECT: dict[str, str] = {
    "good": "revision where the metric has its old value (sha, tag, branch, main~3)",
    "bad": "later revision where it has changed (if good is on another branch: their merge base is used)",
    "workload": "suite workload (nbody, richards, ... see configs/suite.toml), pyperformance:NAME (the benchmark's timed function on the manual path; default --loops 1), or a path to a .py "
    "script defining run(loops)",
    "metric": "counter name or arithmetic over counter names, e.g. "
    "'opcode.LOAD_ATTR.specialization.hit / opcode.LOAD_ATTR.execution_count'",
    "threshold": "judge each commit against this value (default: midpoint of the good and bad values)",
    "direction": "up: bad means above the threshold; down: below (default: from good vs bad)",
    "loops": "bracketed loops per run (default: the workload's loops in configs/suite.toml; 10 for a script)",
    "out": "directory for report.json, report.md, plot.png (default: <cache_dir>/bisect/<time>-<workload>)",
    "jobs": "make -j for the builds (default: setting pystats.jobs)",
}

BISECT_RUN: dict[str, str] = {
    "workload": "suite workload, pyperformance:NAME, or path to a .py script defining run(loops)",
    "metric": "counter name or arithmetic over counter names (as for invoke bisect)",
    "threshold": "bad when the metric is beyond this value (required)",
    "direction": "up (default): bad means above the threshold; down: below",
    "rev": "revision to measure (default: the current directory's BISECT_HEAD or HEAD)",
    "loops": "bracketed loops per run (default as for invoke bisect)",
}

HISTORY: dict[str, str] = {
    "from_": "oldest commit of the range (sha, tag, branch); must be an ancestor of --to",
    "to": "newest commit of the range; the commits between are its first-parent chain",
    "workload": "suite workload or pyperformance:NAME run at every commit (default nbody; see configs/suite.toml)",
    "benchmarks": "instead of --workload: pyperformance benchmarks (as for invoke collect: nbody,richards or a group), each on the manual path at every commit, one build per commit",
    "metric": "counter name or arithmetic over counter names (as for invoke bisect); repeat for several",
    "every": "measure every N-th commit from --from (N >= 1; --to is always measured)",
    "count": "measure M commits spread evenly over the range (M >= 2, both ends included)",
    "threshold": "flag a change point where a metric moves by more than this fraction (default 0.05)",
    "loops": "bracketed loops per run (default: the workload's loops in configs/suite.toml; 1 for a benchmark)",
    "out": "directory for history.json, history.md, history.png (default: <cache_dir>/history/<time>-<workload>)",
}

CLUSTER_LOCAL: dict[str, str] = {
    "workers": "how many dask worker processes to start (each builds one revision at a time, own cache dir)",
}

CACHE: dict[str, str] = {
    "action": "list: every build with size and last use, and the space of lanes, runs, reports and "
    "ccache; verify: check every build against its recorded contents, mark damaged ones invalid; prune: remove "
    "least recently used builds with their runs and reports",
    "keep": "prune: keep this many most recently used builds",
    "max_size": "prune: remove least recently used builds until the rest fits, e.g. 20G",
    "older_than": "prune: remove builds not used for this many days",
    "dry_run": "prune: show what would be removed and remove nothing",
}

COLLECT: dict[str, str] = {
    "rev": "revision to build (if not cached) and collect (default: setting pystats.default_rev)",
    "patches": "auto (default), none, or a comma-separated list of change ids",
    "benchmarks": "default | all | a group (apps, math, …) | names, e.g. nbody,richards or default,-go (default: default)",
    "jobs": "benchmarks run at a time, each in its own container (default 2)",
    "processes": "pyperf worker processes per benchmark; 2 or more checks that workers agree (default 2)",
    "loops": "a loops file (loops.json of an earlier collect, or a pyperf result JSON); default: calibrate",
    "out": "output directory (default: <cache_dir>/collect/<stamp>-<rev>); replaced only when complete",
    "no_manual": "skip the manual-path leakage check and the net counts (verdicts become partial)",
    "strict": "exit 27 when a benchmark is partial (a check could not run)",
}
