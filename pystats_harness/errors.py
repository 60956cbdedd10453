"""One error root; each kind of failure has its own exit code, a member of the registry
:class:`~pystats_harness.exit_codes.ExitCode` (set by one class; a narrower case inherits it).

Messages are one line: what went wrong, why, and what to try. Errors that callers act on carry
their facts as attributes (a build failure its phase, log tail and log path; a failed command its
argv, exit status and stderr tail), so that nothing ever parses a message back.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.exit_codes import ExitCode

_COMPILE_ERROR = re.compile(r"(error:|Error \d+|\*\*\*)")


@dataclass(frozen=True)
class FailedCommand:
    """A subprocess that exited non-zero (see :func:`pystats_harness.infra.proc.run`)."""

    argv: tuple[str, ...]
    status: int
    stderr_tail: str


class HarnessError(Exception):
    """Root of every error the harness reports to a user."""

    exit_code: int = ExitCode.FAILURE  # each kind sets its own; an error about another one may take that one's

    def __init__(self, message: str, *, command: FailedCommand | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.command = command

    def __str__(self) -> str:
        return self.message


class ConfigError(HarnessError):
    """A setting or argument is invalid."""

    exit_code = ExitCode.CONFIG_ERROR


class RevisionNotFound(HarnessError):
    """A revision does not resolve to a commit in the mirror."""

    exit_code = ExitCode.REVISION_NOT_FOUND


class RevisionUnsupported(HarnessError):
    """A revision has no --enable-pystats (older than CPython 3.11.0a4), or only its first form
    (main 342b93f9f2 .. efd6236d36~1: per-family specialization stats, no PyStats struct)."""

    exit_code = ExitCode.REVISION_UNSUPPORTED


class ConfigurationUnsupported(HarnessError):
    """A revision cannot build a configuration with pystats (no such configure option, an LLVM version
    the builder's Debian lacks, no pystats there); decided while planning, before any work."""

    exit_code = ExitCode.CONFIGURATION_UNSUPPORTED

    def __init__(self, message: str, *, configuration: str, reasons: Sequence[str]) -> None:
        super().__init__(message)
        self.configuration = configuration
        self.reasons = tuple(reasons)


class EngineUnavailable(HarnessError):
    """The Docker engine cannot be reached."""

    exit_code = ExitCode.ENGINE_UNAVAILABLE


class ImageError(HarnessError):
    """The builder image is missing or could not be built."""

    exit_code = ExitCode.IMAGE_ERROR


class BuildFailed(HarnessError):
    """configure, make or make install failed; carries the phase, the log tail, the log path and,
    when the build container was OOM-killed, the memory limit it reached."""

    exit_code = ExitCode.BUILD_FAILED

    def __init__(
        self,
        *,
        phase: str,
        commit: str,
        status: int,
        log_tail: Sequence[str],
        log_path: Path,
        memory_limit: str | None = None,
    ) -> None:
        reached = f"; memory limit ({memory_limit}) reached: raise pystats.build_memory" if memory_limit else ""
        super().__init__(
            f"{phase} failed for {commit} (exit {status}){reached}; last {len(log_tail)} log lines above; "
            f"full log: {log_path}"
        )
        self.memory_limit = memory_limit
        self.phase = phase
        self.commit = commit
        self.status = status
        self.log_tail = tuple(log_tail)
        self.log_path = log_path
        self.repairs_tried: tuple[str, ...] = ()

    def no_repair(self, files: Sequence[str], tried: Sequence[str]) -> None:
        """Say that no upstream repair fits (the search's result: what it tried, if anything)."""
        self.repairs_tried = tuple(tried)
        what = f"tried {', '.join(tried)}" if tried else "no later first-parent commit has stats lines there that apply"
        self.message = f"{self.message}; no upstream repair of {', '.join(files)} fits: {what}"

    def first_error(self) -> str:
        """The compiler's or make's first error line in the log tail ("" if none)."""
        return next((line.strip() for line in self.log_tail if _COMPILE_ERROR.search(line)), "")


class PatchError(HarnessError):
    """A patch does not apply, or the patch series is inconsistent."""

    exit_code = ExitCode.PATCH_ERROR


class VerificationFailed(HarnessError):
    """The behaviour fingerprint of a build differs from the fixed semantics."""

    exit_code = ExitCode.VERIFICATION_FAILED


class MirrorError(HarnessError):
    """The source mirror cannot be created, updated or written."""

    exit_code = ExitCode.MIRROR_ERROR


class CheckoutFailed(MirrorError):
    """One commit cannot be checked out into a worktree (the mirror itself is fine)."""

    def __init__(self, sha: str, reason: str) -> None:
        super().__init__(f"cannot check out {sha[:12]}: {reason}")
        self.sha = sha
        self.reason = reason


class ReleaseImportError(HarnessError):
    """A release tarball cannot be imported into the mirror."""

    exit_code = ExitCode.RELEASE_IMPORT_ERROR


class StatsParseError(HarnessError):
    """A stats dump file cannot be parsed."""

    exit_code = ExitCode.STATS_PARSE_ERROR


class NotBuilt(HarnessError):
    """A task needs a cached build that does not exist yet."""

    exit_code = ExitCode.NOT_BUILT


class RunFailed(HarnessError):
    """A run of a built interpreter could not be carried out."""

    exit_code = ExitCode.RUN_FAILED


class InterpreterExited(HarnessError):
    """`invoke run`: the interpreter exited non-zero, ``status`` its own code (above 128: as if killed by a signal)."""

    exit_code = ExitCode.INTERPRETER_EXITED

    def __init__(self, status: int, run_dir: Path) -> None:
        killed = {int(sig) + 128: sig.name for sig in signal.Signals}.get(status)
        as_if = f" (as a process killed by {killed} does)" if killed else ""
        super().__init__(f"interpreter exited {status}{as_if}; its output is kept in {run_dir}")
        self.status, self.run_dir = status, run_dir


class DiskFull(HarnessError):
    """The file system of the cache (or of a run) has no space left; nothing half-made is kept."""

    exit_code = ExitCode.DISK_FULL

    def __init__(self, where: Path, what: str) -> None:
        super().__init__(
            f"no space left on the device of {where} while {what}; nothing half-made was kept. "
            "Free space (e.g. `invoke cache prune --max-size 20G`) or set pystats.cache_dir to a larger disk"
        )
        self.where = where


class EndpointsDoNotDiffer(ConfigError):
    """A bisect's good and bad commits do not differ in the way the bisect assumes."""


class EndpointFailed(HarnessError):
    """A bisect's --good or --bad commit cannot be measured; exits with the code of the reason."""

    def __init__(self, message: str, *, cause: HarnessError) -> None:
        super().__init__(message)
        self.cause = cause
        self.exit_code = cause.exit_code


class MissingCounters(ConfigError):
    """None of a metric's counters is in the stats (the names are wrong, or the code never ran)."""

    def __init__(self, message: str, *, names: Sequence[str]) -> None:
        super().__init__(message)
        self.names = tuple(names)


class Interrupted(HarnessError):
    """The user pressed Ctrl-C; everything half-made was cleaned up."""

    exit_code = ExitCode.INTERRUPTED


class ValidationFailed(HarnessError):
    """`invoke validate` found the stats unreliable (base of the kinds below, each with its own exit code)."""


class FingerprintFailed(ValidationFailed):
    """The build does not behave like fixed pystats."""

    exit_code = ExitCode.FINGERPRINT_FAILED


class CanaryMismatch(ValidationFailed):
    """A canary's family counts are not exact."""

    exit_code = ExitCode.CANARY_MISMATCH


class LeakageFound(ValidationFailed):
    """Automated and manual counts differ, something was counted outside the bracket, or runs interfere."""

    exit_code = ExitCode.LEAKAGE_FOUND


class ThreadsNotHeld(ValidationFailed):
    """The threaded canary's counts are not T times one thread's: the build loses (or repeats) updates."""

    exit_code = ExitCode.THREADS_NOT_HELD


class BaselineMismatch(ValidationFailed):
    """Counters are outside the baseline's tolerance."""

    exit_code = ExitCode.BASELINE_MISMATCH


class NoBaseline(ValidationFailed):
    """No baseline is recorded for this Python version."""

    exit_code = ExitCode.NO_BASELINE


class ValidationPartial(ValidationFailed):
    """`invoke validate --strict`: a step could check only part of what it checks (reported, not fatal, without)."""

    exit_code = ExitCode.VALIDATION_PARTIAL


class OutputNotWritable(HarnessError):
    """An output directory cannot be created or written: refused before any work (nothing written)."""

    exit_code = ExitCode.OUTPUT_NOT_WRITABLE

    def __init__(self, path: Path, why: str, option: str = "--out") -> None:
        where = "the output directory" if option == "--out" else f"{option}'s folder"  # --json FILE's, say
        super().__init__(
            f"cannot write {where} {path}: {why}; nothing was run or written. Pass {option} in a directory you can write"
        )
        self.path, self.why, self.option = path, why, option


class PathNotWritable(OutputNotWritable):
    """A path the harness must create or write (the cache directory, a file under it) cannot be: the
    operating system's refusal as one line with the path and why, not its traceback."""

    def __init__(self, path: Path, why: str) -> None:
        HarnessError.__init__(
            self,
            f"cannot create or write {path}: {why}; point pystats.cache_dir (INVOKE_PYSTATS_CACHE_DIR), or --out, "
            "at a directory you can write",
        )
        self.path, self.why = path, why
