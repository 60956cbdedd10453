"""Errors of `invoke collect` (beneath the one root, :class:`pystats_harness.errors.HarnessError`)."""

from __future__ import annotations

from pystats_harness.errors import HarnessError


class WheelMissing(HarnessError):
    """A package a benchmark needs is not in the wheelhouse (carries the package and the fix)."""

    exit_code = 17

    def __init__(self, message: str, *, package: str) -> None:
        super().__init__(message)
        self.package = package


class CollectFailed(HarnessError):
    """At least one benchmark failed to run (the others ran; the report names each)."""

    exit_code = 25


class CollectUntrusted(HarnessError):
    """Every benchmark ran, but at least one benchmark's stats are not trustworthy."""

    exit_code = 26


class CollectPartial(HarnessError):
    """``--strict``: a benchmark has a check that could not run (the trust table says which and why)."""

    exit_code = 27
