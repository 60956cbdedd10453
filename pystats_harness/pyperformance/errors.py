"""Errors of running pyperformance benchmarks (beneath the one root, :class:`pystats_harness.errors.HarnessError`)."""

from __future__ import annotations

from pystats_harness.errors import HarnessError
from pystats_harness.exit_codes import ExitCode


class WheelMissing(HarnessError):
    """A package a benchmark needs is not in the wheelhouse (carries the package and the fix)."""

    exit_code = ExitCode.WHEEL_MISSING

    def __init__(self, message: str, *, package: str) -> None:
        super().__init__(message)
        self.package = package
