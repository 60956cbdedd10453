"""`invoke validate` on a Dask cluster: one unit "build revision R with patches P, then validate
workloads W" (``jobs`` runs at a time on that worker). The worker sends back the
:class:`~pystats_harness.validate.report.ValidationReport` (steps, findings, deviations: a few kB),
its name and whether it built; the client writes the report files and prints the table as a local
validation does. A failure of the revision itself (its build, its fingerprint) comes back as
:class:`~pystats_harness.dispatch.worker.RemoteFailure` and exits with the local exit code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.cluster.client import Cluster, Fault, Unfit
from pystats_harness.dispatch.dispatcher import raise_failure
from pystats_harness.dispatch.worker import RemoteFailure, local_commit, on_worker
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.validate.driver import fingerprint_step, validate
from pystats_harness.validate.report import ValidationReport


@dataclass(frozen=True)
class ValidateUnit:
    commit: CommitInfo  # resolved in the client's mirror; the worker fetches it from its mirror_remote
    patches: str
    workloads: dict[str, int]  # workload -> loops, chosen (and checked) by the client
    jobs: int
    leak: bool = False  # plant a leak in the automated runs (tests of the leakage step)
    config: str = "default"  # the build configuration (its name; the worker reads configs/configurations.toml)


@dataclass(frozen=True)
class ValidateResult:
    worker: str
    built: bool  # False: the worker's build cache had it
    report: ValidationReport | None
    failure: RemoteFailure | None = None
    seconds: dict[str, float] = field(default_factory=dict)


def validate_unit(unit: ValidateUnit) -> ValidateResult | Unfit | Fault:
    """Run on a worker: fetch, build (through its cache) and validate one revision."""
    return on_worker(
        lambda ctx, name: _validate(ctx, unit, name),
        lambda exc, name: ValidateResult(name, False, None, RemoteFailure.of(exc, name)),
    )


def _validate(ctx: Context, unit: ValidateUnit, name: str) -> ValidateResult:
    start = time.perf_counter()
    commit = local_commit(ctx, unit.commit)
    with fingerprint_step():
        obtained = obtain(ctx, plan_for(ctx, commit, unit.patches, unit.config))
    entry, built = obtained.entry, obtained.built
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


def validate_on_cluster(
    ctx: Context,
    cluster: Cluster[ValidateUnit, ValidateResult],
    commit: CommitInfo,
    patches: str,
    workloads: dict[str, int],
    jobs: int,
    *,
    leak: bool = False,
    config: str = "default",
) -> tuple[ValidationReport, ValidateResult]:
    """Send the validation of ``commit`` to a worker of ``cluster``; its report and result."""
    ctx.reporter.info(f"validating {commit.rev} ({commit.short}) on the cluster at {cluster.address}")
    unit = ValidateUnit(commit, patches, dict(workloads), jobs, leak, config)
    (result,) = cluster.run_units(validate_unit, [unit])
    if result.failure is not None or result.report is None:
        raise_failure(result.failure or RemoteFailure("HarnessError", 1, "no report came back", result.worker))
    # the worker built the sha: name the revision as asked here, and where it ran (its paths are its own)
    where = {"revision": commit.rev, "worker": result.worker, "cluster": cluster.address}
    return replace(result.report, metadata={**result.report.metadata, **where}), result
