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
on any exception, which aborts the bisect at the first broken commit).  An unexpected exception is a
harness bug, not a property of the commit: it aborts (128) and the caller prints its traceback.

The codes and their meanings are declared in :class:`pystats_harness.exit_codes.BisectRunCode`.
"""

from __future__ import annotations

from pystats_harness import errors
from pystats_harness.bisect.judge import Judge
from pystats_harness.exit_codes import BisectRunCode
from pystats_harness.measure.outcome import Outcome, failure_for_error

EXIT_GOOD = BisectRunCode.GOOD
EXIT_BAD = BisectRunCode.BAD
EXIT_SKIP = BisectRunCode.SKIP
EXIT_ABORT = BisectRunCode.ABORT
EXIT_INTERRUPTED = BisectRunCode.INTERRUPTED


def exit_code(outcome: Outcome, judge: Judge) -> BisectRunCode:
    """0 if the outcome is good, 1 if bad, 125 if it has no usable value."""
    if not outcome.usable:
        return EXIT_SKIP
    return EXIT_BAD if judge.is_bad(outcome.number) else EXIT_GOOD


def exit_code_for_error(exc: BaseException) -> BisectRunCode:
    """125 for a per-commit problem; 130 for Ctrl-C; 128 (abort) for a problem with the setup."""
    if isinstance(exc, (KeyboardInterrupt, errors.Interrupted)):
        return EXIT_INTERRUPTED
    return EXIT_SKIP if failure_for_error(exc) is not None else EXIT_ABORT
