"""How a diff ends when it is not clean (beneath the one root, :class:`pystats_harness.errors.HarnessError`).
All are raised after everything is written; a benchmark not compared wins over an untrusted one, which
wins over a flagged change."""

from __future__ import annotations

from pystats_harness.errors import HarnessError
from pystats_harness.exit_codes import ExitCode


class DiffFlagged(HarnessError):
    """The comparison flagged at least one interesting change (every benchmark trusted on both sides)."""

    exit_code = ExitCode.DIFF_FLAGGED


class DiffUntrusted(HarnessError):
    """A benchmark is not trusted on one side or both: the comparison is written, each named."""

    exit_code = ExitCode.DIFF_UNTRUSTED


class DiffNotCompared(HarnessError):
    """A requested benchmark did not run on one side or both: "no change" cannot be said of it."""

    exit_code = ExitCode.DIFF_NOT_COMPARED
