"""Validate's units of work, the same here and on a Dask worker: "with this build, validate workloads W"
(``jobs`` runs at a time) and "with this build, record the baselines of W" (on this machine: baselines
are files of the repository).

A validation answers its :class:`~pystats_harness.validate.report.ValidationReport` (steps, findings,
deviations: a few kB), the worker's name and whether it built; the client writes the report files. A
build whose behaviour fingerprint differs fails the validation's first step (FingerprintFailed, exit 20),
not the build (exit 9).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.dispatch.units import Attempt, Emit, Work
from pystats_harness.errors import FingerprintFailed, VerificationFailed
from pystats_harness.infra.context import Context
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.validate.driver import record_baselines, validate
from pystats_harness.validate.report import ValidationReport


@dataclass(frozen=True)
class ValidateResult:
    worker: str  # "" on this machine
    built: bool  # False: the build cache had it
    report: ValidationReport
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ValidateWork(Work[ValidateResult]):
    workloads: tuple[tuple[str, int], ...]  # workload -> loops, chosen (and checked) by the client
    jobs: int
    leak: bool = False  # plant a leak in the automated runs (tests of the leakage step)

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> ValidateResult:
        start = time.perf_counter()
        report = validate(
            ctx,
            attempt.build.entry,
            dict(self.workloads),
            load_suite(),
            jobs=self.jobs,
            tick=lambda: emit({"tick": 1}),
            leak=self.leak,
            baselines_root=ctx.settings.baselines_dir,
        )
        seconds = {"build": attempt.seconds.get("build", 0.0), "validate": time.perf_counter() - start}
        return ValidateResult(attempt.worker, attempt.built, report, seconds)

    def failed(self, ctx: Context, attempt: Attempt, error: Exception) -> ValidateResult | None:
        if isinstance(error, VerificationFailed):
            raise FingerprintFailed(f"validation failed at fingerprint: {error}") from None
        return None


@dataclass(frozen=True)
class BaselineWork(Work[list[Path]]):
    """Manual-path per-loop stats (net of the null workload) recorded as the baselines of the build's
    Python version; the files written."""

    rev: str
    workloads: tuple[tuple[str, int], ...]
    jobs: int

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> list[Path]:
        entry, suite = attempt.build.entry, load_suite()
        tick = lambda: emit({"tick": 1})  # noqa: E731
        return record_baselines(ctx, entry, self.rev, dict(self.workloads), suite, jobs=self.jobs, tick=tick)
