"""What measuring one commit gave (:class:`Outcome`: a value, or a :class:`Failure` with its reason), and
which errors are about one commit (it gets a failed outcome and is skipped) and which would repeat at
every commit (they propagate and end the run)."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from pystats_harness import errors
from pystats_harness.errors import MissingCounters


class Failure(enum.StrEnum):
    """Why a commit has no value."""

    CHECKOUT_FAILED = "checkout failed"
    PATCH_FAILED = "patch failed"
    BUILD_FAILED = "build failed"
    RUN_FAILED = "run failed"
    METRIC_UNDEFINED = "metric undefined"  # NaN (division by zero) or none of its counters present


@dataclass(frozen=True)
class Outcome:
    """What measuring one commit gave: a value, or a failure with its reason."""

    value: float | None = None
    failure: Failure | None = None
    detail: str = ""  # why it failed (error line, log path), or notes about the value

    def __post_init__(self) -> None:
        if (self.value is None) == (self.failure is None):
            raise ValueError("an Outcome has either a value or a failure")
        if self.failure is not None:
            object.__setattr__(self, "failure", Failure(self.failure))

    @classmethod
    def ok(cls, value: float, detail: str = "") -> Outcome:
        return cls(value=float(value), detail=detail)

    @classmethod
    def failed(cls, failure: Failure | str, detail: str = "") -> Outcome:
        return cls(failure=Failure(failure), detail=detail)

    @property
    def usable(self) -> bool:
        return self.value is not None and math.isfinite(self.value)

    @property
    def number(self) -> float:
        """The value of a usable outcome (check :attr:`usable` first)."""
        if self.value is None or not math.isfinite(self.value):
            raise ValueError(f"outcome has no usable value ({self.reason})")
        return self.value

    @property
    def reason(self) -> str:
        """A failure as one phrase (``"build failed: make returned 2"``); "" for a usable value."""
        if self.usable:
            return ""
        if self.failure is None:
            return f"{Failure.METRIC_UNDEFINED}: value is {self.value}"
        return f"{self.failure}: {self.detail}" if self.detail else self.failure


def normalised(outcome: Outcome) -> Outcome:
    """A NaN or infinite value cannot be judged: it becomes a METRIC_UNDEFINED failure."""
    if outcome.value is not None and not math.isfinite(outcome.value):
        detail = f"value is {outcome.value}" + (f"; {outcome.detail}" if outcome.detail else "")
        return Outcome.failed(Failure.METRIC_UNDEFINED, detail)
    return outcome


# Errors that are about one commit: the commit is skipped.  (The order matters only for subclasses.)
_PER_COMMIT: tuple[tuple[type[BaseException], Failure], ...] = (
    (errors.RevisionNotFound, Failure.CHECKOUT_FAILED),
    (errors.RevisionUnsupported, Failure.BUILD_FAILED),
    (errors.ConfigurationUnsupported, Failure.BUILD_FAILED),
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


def failure_for_error(exc: BaseException) -> Failure | None:
    """The failure kind for an error about one commit, or None if the error should end the bisect.

    :class:`~pystats_harness.errors.MissingCounters` is per commit (a commit may predate a counter);
    at the endpoints the caller reports it as an error instead. A commit that cannot be checked out
    (:class:`~pystats_harness.errors.CheckoutFailed`) is skipped; other mirror errors end the bisect, and
    so do a bare :class:`~pystats_harness.errors.HarnessError` and any other exception: a harness bug must
    not look like an unbuildable commit.
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
    if isinstance(exc, errors.HarnessError) and type(exc) is not errors.HarnessError:
        return Failure.RUN_FAILED
    return None  # the harness's own error or an unexpected one (a bug): it ends the run, never a skipped commit


def outcome_for_error(exc: BaseException) -> Outcome | None:
    """An :class:`Outcome` that skips the commit, or None if ``exc`` must propagate (setup, Ctrl-C)."""
    failure = failure_for_error(exc)
    if failure is None:
        return None
    return Outcome.failed(failure, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
