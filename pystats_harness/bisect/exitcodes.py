"""Exit codes for ``git bisect run``: 0 good, 1 bad, 125 skip; a problem with the setup aborts.

``git bisect run`` reads the script's exit code: 0 marks the commit good, 1–127 except 125 bad,
125 skips it, and anything else (negative, or 128 and above) aborts the whole bisect.  So:

* a measured value → 0 or 1 from the :class:`~pystats_harness.bisect.search.Judge`;
* a commit that cannot be measured (checkout, patches, build, run, undefined metric — including
  none of the metric's counters present) → 125;
* an error that would be the same at every commit (a bad ``--metric``, no Docker engine, no builder
  image, no mirror) → 128, which aborts with git's "exit code 128 ... is >= 128" message instead of
  skipping every commit one by one; Ctrl-C → 130.

Never 255 / -1 for a commit that merely failed to build (bench_runner's child does ``sys.exit(-1)``
on any exception, which aborts the bisect at the first broken commit).  An unexpected exception is
taken as a property of that commit and skipped (125); the caller prints its traceback.
"""

from __future__ import annotations

from pystats_harness import errors
from pystats_harness.bisect.judge import Failure, Judge, Outcome
from pystats_harness.errors import MissingCounters

EXIT_GOOD = 0
EXIT_BAD = 1
EXIT_SKIP = 125
EXIT_ABORT = 128
EXIT_INTERRUPTED = 130

# Errors that are about one commit: the commit is skipped.  (The order matters only for subclasses.)
_PER_COMMIT: tuple[tuple[type[BaseException], Failure], ...] = (
    (errors.RevisionNotFound, Failure.CHECKOUT_FAILED),
    (errors.RevisionUnsupported, Failure.BUILD_FAILED),
    (errors.PatchError, Failure.PATCH_FAILED),
    (errors.BuildFailed, Failure.BUILD_FAILED),
    (errors.VerificationFailed, Failure.BUILD_FAILED),
    (errors.NotBuilt, Failure.BUILD_FAILED),
    (errors.RunFailed, Failure.RUN_FAILED),
    (errors.StatsParseError, Failure.RUN_FAILED),
)
# Errors that would repeat at every commit: the bisect is aborted.
_SETUP = (
    errors.ConfigError,
    errors.EngineUnavailable,
    errors.ImageError,
    errors.MirrorError,
    errors.ReleaseImportError,
)


def exit_code(outcome: Outcome, judge: Judge) -> int:
    """0 if the outcome is good, 1 if bad, 125 if it has no usable value."""
    if not outcome.usable:
        return EXIT_SKIP
    return EXIT_BAD if judge.is_bad(outcome.number) else EXIT_GOOD


def failure_for_error(exc: BaseException) -> Failure | None:
    """The failure kind for an error about one commit, or None if the error should end the bisect.

    :class:`~pystats_harness.errors.MissingCounters` is per commit (a commit may predate a counter);
    at the endpoints the caller reports it as an error instead. A commit that cannot be checked out
    (:class:`~pystats_harness.errors.CheckoutFailed`) is skipped; other mirror errors end the bisect.
    """
    if isinstance(exc, MissingCounters):
        return Failure.METRIC_UNDEFINED
    if isinstance(exc, errors.CheckoutFailed):
        return Failure.CHECKOUT_FAILED
    if isinstance(exc, (KeyboardInterrupt, errors.Interrupted, _SETUP)):
        return None
    for kind, failure in _PER_COMMIT:
        if isinstance(exc, kind):
            return failure
    if isinstance(exc, errors.HarnessError):
        return Failure.RUN_FAILED
    return Failure.RUN_FAILED if isinstance(exc, Exception) else None


def outcome_for_error(exc: BaseException) -> Outcome | None:
    """An :class:`Outcome` that skips the commit, or None if ``exc`` must propagate (setup, Ctrl-C)."""
    failure = failure_for_error(exc)
    if failure is None:
        return None
    return Outcome.failed(failure, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def exit_code_for_error(exc: BaseException) -> int:
    """125 for a per-commit problem; 130 for Ctrl-C; 128 (abort) for a problem with the setup."""
    if isinstance(exc, (KeyboardInterrupt, errors.Interrupted)):
        return EXIT_INTERRUPTED
    return EXIT_SKIP if failure_for_error(exc) is not None else EXIT_ABORT
