"""`invoke validate` on a Dask cluster: one unit "build revision R with patches P, then validate
workloads W" (``jobs`` runs at a time on that worker). The worker sends back the
:class:`~pystats_harness.validate.report.ValidationReport` (steps, findings, deviations: a few kB),
its name and whether it built; the client writes the report files and prints the table as a local
validation does. A failure of the revision itself (its build, its fingerprint) comes back as
:class:`~pystats_harness.cluster.worker.RemoteFailure` and exits with the local exit code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import NoReturn

from pystats_harness.cluster.client import Cluster, Unfit
from pystats_harness.cluster.errors import UnitFailed
from pystats_harness.cluster.worker import RemoteFailure, local_commit, on_worker
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.validate.driver import obtain_build_for_validation, validate
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.suiteconfig import load_suite


@dataclass(frozen=True)
class ValidateUnit:
    commit: CommitInfo  # resolved in the client's mirror; the worker fetches it from its mirror_remote
    patches: str
    workloads: dict[str, int]  # workload -> loops, chosen (and checked) by the client
    jobs: int
    leak: bool = False  # plant a leak in the automated runs (tests of the leakage step)


@dataclass(frozen=True)
class ValidateResult:
    worker: str
    built: bool  # False: the worker's build cache had it
    report: ValidationReport | None
    failure: RemoteFailure | None = None
    seconds: dict[str, float] = field(default_factory=dict)


def validate_unit(unit: ValidateUnit) -> ValidateResult | Unfit:
    """Run on a worker: fetch, build (through its cache) and validate one revision."""
    return on_worker(
        lambda ctx, name: _validate(ctx, unit, name),
        lambda exc, name: ValidateResult(name, False, None, RemoteFailure.of(exc, name)),
    )


def _validate(ctx: Context, unit: ValidateUnit, name: str) -> ValidateResult:
    start = time.perf_counter()
    commit = local_commit(ctx, unit.commit)
    entry, built = obtain_build_for_validation(ctx, commit.sha, unit.patches)
    built_at = time.perf_counter()
    report = validate(
        ctx,
        entry,
        dict(unit.workloads),
        load_suite(),
        jobs=unit.jobs,
        tick=lambda: None,
        leak=unit.leak,
        baselines_root=ctx.settings.baselines_dir,
    )
    seconds = {"build": built_at - start, "validate": time.perf_counter() - built_at}
    return ValidateResult(name, built, report, None, seconds)


def raise_failure(failure: RemoteFailure) -> NoReturn:
    """The worker's error, with its exit code, as the client's error (nothing parsed from the message)."""
    raise UnitFailed(
        f"{failure.message} (on cluster worker {failure.worker})",
        kind=failure.kind,
        exit_code=failure.exit_code,
        worker=failure.worker,
        log_tail=failure.log_tail,
    )


def validate_on_cluster(
    ctx: Context, commit: CommitInfo, patches: str, workloads: dict[str, int], jobs: int, *, leak: bool = False
) -> tuple[ValidationReport, ValidateResult]:
    """Send the validation of ``commit`` to a worker of ``ctx.settings.cluster``; its report and result."""
    with Cluster[ValidateUnit, ValidateResult](ctx.settings.cluster) as cluster:
        warn_unfit(ctx, cluster.workers.unfit, set())
        named = set(cluster.workers.unfit)
        ctx.reporter.info(f"validating {commit.rev} ({commit.short}) on the cluster at {ctx.settings.cluster}")
        (result,) = cluster.run_units(validate_unit, [ValidateUnit(commit, patches, dict(workloads), jobs, leak)])
        warn_unfit(ctx, cluster.workers.unfit, named)
    if result.failure is not None or result.report is None:
        raise_failure(result.failure or RemoteFailure("HarnessError", 1, "no report came back", result.worker))
    # the worker built the sha: name the revision as asked here, and where it ran (its paths are its own)
    where = {"revision": commit.rev, "worker": result.worker, "cluster": ctx.settings.cluster}
    return replace(result.report, metadata={**result.report.metadata, **where}), result


def warn_unfit(ctx: Context, unfit: dict[str, str], already: set[str]) -> None:
    """One warning per worker that takes no units (those in ``already`` were named before)."""
    for worker, why in sorted(unfit.items()):
        if worker not in already:
            ctx.reporter.warn(f"cluster worker {worker} takes no units: {why}")
