"""Errors of `invoke collect` (beneath the one root, :class:`pystats_harness.errors.HarnessError`)."""

from __future__ import annotations

from pystats_harness.errors import HarnessError
from pystats_harness.exit_codes import ExitCode


class CollectFailed(HarnessError):
    """At least one benchmark failed to run (the others ran; the report names each)."""

    exit_code = ExitCode.COLLECT_FAILED


class CollectUntrusted(HarnessError):
    """Every benchmark ran, but at least one benchmark's stats are not trustworthy."""

    exit_code = ExitCode.COLLECT_UNTRUSTED


class CollectLossy(HarnessError):
    """A benchmark ran threads on a build whose counters lose updates under threads (its threaded canary)."""

    exit_code = ExitCode.COLLECT_THREADS_UNRELIABLE


class CollectPartial(HarnessError):
    """``--strict``: a benchmark has a check that could not run (the trust table says which and why)."""

    exit_code = ExitCode.COLLECT_PARTIAL


class MixedBuilds(HarnessError):
    """The units of one cluster collect came back measured with different builds; nothing is summed or
    written. Carries each build key and the workers that used it."""

    exit_code = ExitCode.MIXED_BUILDS

    def __init__(self, message: str, *, keys: dict[str, tuple[str, ...]]) -> None:
        super().__init__(message)
        self.keys = dict(keys)
