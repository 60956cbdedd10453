"""One error root; each kind of failure has its own exit code.

Messages are one line: what went wrong, why, and what to try.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Root of every error the harness reports to a user."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(HarnessError):
    """A setting or argument is invalid."""

    exit_code = 2


class RevisionNotFound(HarnessError):
    """A revision does not resolve to a commit in the mirror."""

    exit_code = 3


class RevisionUnsupported(HarnessError):
    """A revision has no --enable-pystats (older than CPython 3.11.0a4)."""

    exit_code = 4


class EngineUnavailable(HarnessError):
    """The Docker engine cannot be reached."""

    exit_code = 5


class ImageError(HarnessError):
    """The builder image is missing or could not be built."""

    exit_code = 6


class BuildFailed(HarnessError):
    """configure, make or make install failed."""

    exit_code = 7


class PatchError(HarnessError):
    """A patch does not apply, or the patch series is inconsistent."""

    exit_code = 8


class VerificationFailed(HarnessError):
    """The behaviour fingerprint of a build differs from the fixed semantics."""

    exit_code = 9


class MirrorError(HarnessError):
    """The source mirror cannot be created, updated or written."""

    exit_code = 10


class ReleaseImportError(HarnessError):
    """A release tarball cannot be imported into the mirror."""

    exit_code = 11


class StatsParseError(HarnessError):
    """A stats dump file cannot be parsed."""

    exit_code = 12


class NotBuilt(HarnessError):
    """A task needs a cached build that does not exist yet."""

    exit_code = 13


class RunFailed(HarnessError):
    """A run of a built interpreter could not be carried out."""

    exit_code = 14


class Interrupted(HarnessError):
    """The user pressed Ctrl-C; everything half-made was cleaned up."""

    exit_code = 130


class ValidationFailed(HarnessError):
    """`invoke validate` found the collected stats unreliable (base of the kinds below)."""

    exit_code = 20


class FingerprintFailed(ValidationFailed):
    exit_code = 20


class CanaryMismatch(ValidationFailed):
    exit_code = 21


class LeakageFound(ValidationFailed):
    exit_code = 22


class BaselineMismatch(ValidationFailed):
    exit_code = 23


class NoBaseline(ValidationFailed):
    exit_code = 24
