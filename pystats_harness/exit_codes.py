"""Every exit code, once, with what it means: the registry the README's table is generated from.

:class:`ExitCode` holds the harness's codes. Each error class in :mod:`pystats_harness.errors` (and the
``errors`` modules of collect, cluster and pyperformance, and ``infra/script.py``) names its member
(``exit_code = ExitCode.NOT_BUILT``); a code is set by one class only, and a narrower case of it (``NoUsableWorker``
under ``ClusterUnavailable``) inherits it. ``tests/unit/test_exit_codes.py`` holds all of that.

:class:`BisectRunCode` is a different protocol: what ``git bisect run`` reads from ``invoke
bisect-run`` (see :mod:`pystats_harness.bisect.exitcodes`). Its numbers overlap the harness's codes
(1, 130) and mean something else there, so the two are never mixed.

Regenerate the README's tables after a change: ``python3 -m pystats_harness.cli.tables --write README.md``.
"""

from __future__ import annotations

import enum


class _Coded(enum.IntEnum):
    """An exit code with its meaning, declared together: ``NAME = code, "meaning"``."""

    meaning: str

    def __new__(cls, value: int, meaning: str = "") -> _Coded:  # lookup by value passes the code alone
        member = int.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member


@enum.unique
class ExitCode(_Coded):
    """The harness's exit codes (the README's wording)."""

    SUCCESS = 0, "success"
    FAILURE = (
        1,
        "any other failure (e.g. `cache verify` found a damaged build; an unexpected error shows its traceback)",
    )
    CONFIG_ERROR = 2, "bad setting or argument"
    REVISION_NOT_FOUND = 3, "revision not found in the mirror"
    REVISION_UNSUPPORTED = (
        4,
        "revision has no `--enable-pystats` (older than 3.11.0a4), or only its first two days "
        "(main `342b93f9f2` .. `efd6236d36~1`: no `PyStats` struct)",
    )
    ENGINE_UNAVAILABLE = 5, "Docker engine not reachable"
    IMAGE_ERROR = 6, "builder image missing or failed to build"
    BUILD_FAILED = 7, "configure / make / make install failed (last 30 log lines + log path shown)"
    PATCH_ERROR = 8, "a patch does not apply (nothing applied)"
    VERIFICATION_FAILED = 9, "behaviour fingerprint differs from the fixed semantics"
    MIRROR_ERROR = 10, "mirror cannot be created or fetched"
    RELEASE_IMPORT_ERROR = 11, "release tarball cannot be imported"
    STATS_PARSE_ERROR = 12, "stats dump cannot be parsed"
    NOT_BUILT = 13, "the task needs a build that is not cached yet"
    RUN_FAILED = 14, "a run could not be carried out (e.g. timed out)"
    DISK_FULL = 15, "no space left on the cache's file system (nothing half-made is kept)"
    LIMIT_REACHED = 16, "a run reached its process or memory limit (`run_pids`, `run_memory`)"
    WHEEL_MISSING = (
        17,
        "a package a benchmark needs is not in the wheelhouse (the line names it and the command that fetches it)",
    )
    CLUSTER_UNAVAILABLE = (
        18,
        "the configured Dask scheduler (`cluster`) does not answer (nothing was started) or stopped answering, or "
        "no worker could take units within `cluster_wait` seconds (each named with why); nothing half-written",
    )
    VALIDATION_PARTIAL = (
        19,
        "validate `--strict`: a step is `partial` (canaries that cannot be counted statically on this revision)",
    )
    FINGERPRINT_FAILED = 20, "validate: behaviour fingerprint failed"
    CANARY_MISMATCH = 21, "validate: a canary's counts are not exact"
    LEAKAGE_FOUND = 22, "validate: leakage (automated ≠ manual, counts outside the bracket, or runs not isolated)"
    BASELINE_MISMATCH = 23, "validate: counters outside the baseline's tolerance"
    NO_BASELINE = 24, "validate `--require-baseline`: no baseline recorded for this Python version"
    COLLECT_FAILED = 25, "collect: a benchmark failed to run (the others ran; the report names each)"
    COLLECT_UNTRUSTED = 26, "collect: a benchmark's stats are not trustworthy (the trust table names each)"
    COLLECT_PARTIAL = (
        27,
        "collect `--strict`: a benchmark is `partial` (a check could not run; the trust table says which and why)",
    )
    MIXED_BUILDS = (
        28,
        "collect on a cluster: the workers measured with different builds (named with their build keys); "
        "nothing is written",
    )
    CONFIGURATION_UNSUPPORTED = (
        29,
        "the revision cannot build the `--config` configuration with pystats (no such configure option, an LLVM "
        "version the builder's Debian lacks); refused while planning, the line says why and what to try",
    )
    THREADS_NOT_HELD = (
        30,
        "validate: counters do not hold under threads (the threaded canary's counts are not T × one thread's; "
        "the line names the family, the thread count and the share counted)",
    )
    COLLECT_THREADS_UNRELIABLE = (
        31,
        "collect: a benchmark ran threads on a build whose counters do not hold under threads (the trust table "
        "names each, with the threaded canary's loss)",
    )
    OUTPUT_NOT_WRITABLE = (
        32,
        "a directory cannot be created or written: an output directory (`--out`, or the default under the "
        "cache) is refused before any work; the cache directory (`cache_dir`) when the task first writes it; "
        "nothing half-written",
    )
    INTERPRETER_EXITED = (
        33,
        "`invoke run`: the interpreter exited non-zero; the line `interpreter exited N` gives its own exit code "
        "(its output is above and kept in the run's directory)",
    )
    SCRIPT_UNREADABLE = (
        34,
        "`invoke run`: the run's user (`nobody`) cannot read the host script or enter its directory; refused "
        "before any work, the line gives the `chmod` that fixes it",
    )
    NOT_A_STORE = (
        35,
        "results: the file is not a results store (or one written by a newer harness); nothing was read or changed",
    )
    RUN_NOT_FOUND = 36, "results: no stored run has that id (or the prefix names more than one)"
    UNKNOWN_METRIC = (
        37,
        "results: no stored unit has that metric's counters (a counter name, a ratio, a deferred share or a sum: "
        "docs/results.md); the line suggests close names",
    )
    DIFF_FLAGGED = (
        38,
        "diff: an interesting change was flagged (as `git diff --exit-code` exits 1 for a difference); the "
        "report, the comparison and the summarize_stats rendering are written",
    )
    DIFF_UNTRUSTED = (
        39,
        "diff: a benchmark is not trusted on one side or both (a verdict that would make that side's collect "
        "fail: failed, untrusted, lossy; partial with `--strict`); it wins over 38; the report names each, "
        "everything is written",
    )
    DIFF_NOT_COMPARED = (
        40,
        "diff: a requested benchmark did not run on one side or both (skipped: a requirement; failed), so the "
        "diff cannot say it is unchanged; it wins over 39 and 38; the report's first line names each and why, "
        "everything is written",
    )
    INTERRUPTED = 130, "interrupted (Ctrl-C / SIGTERM): no container, worktree or half cache entry left"


@enum.unique
class BisectRunCode(_Coded):
    """What ``invoke bisect-run`` tells ``git bisect run``: 0 good, 1–127 but 125 bad, 125 skip, and
    128 or more aborts the bisect."""

    GOOD = 0, "the commit is good"
    BAD = 1, "the commit is bad"
    SKIP = 125, "skip: the commit cannot be checked out, patched, built or measured"
    ABORT = 128, "setup problem (the same at every commit): aborts the bisect"
    INTERRUPTED = 130, "interrupted (Ctrl-C): aborts the bisect"
