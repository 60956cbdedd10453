"""Errors of the scale-out (beneath the one root, :class:`pystats_harness.errors.HarnessError`)."""

from __future__ import annotations

from pystats_harness.errors import HarnessError
from pystats_harness.exit_codes import ExitCode


class ClusterUnavailable(HarnessError):
    """The configured Dask scheduler does not answer (or has no usable worker); nothing was started."""

    exit_code = ExitCode.CLUSTER_UNAVAILABLE

    def __init__(self, message: str, *, address: str) -> None:
        super().__init__(message)
        self.address = address


class NoUsableWorker(ClusterUnavailable):
    """Every worker of the cluster is unfit (no Docker engine, no harness); carries each one's reason."""

    def __init__(self, address: str, unfit: dict[str, str]) -> None:
        named = "; ".join(f"{worker}: {why}" for worker, why in sorted(unfit.items())) or "no worker connected"
        super().__init__(f"the Dask cluster at {address} has no usable worker ({named})", address=address)
        self.unfit = dict(unfit)


class WorkerFault(HarnessError):
    """An unexpected error of the harness on a worker (a bug, not the revision's failure): the run ends
    naming the worker, the error and where the worker kept the traceback (exit 1, as a local one)."""

    def __init__(self, worker: str, error: str, traceback: str) -> None:
        kept = f"its traceback is in {traceback} on that worker's host" if traceback else "no traceback was kept"
        super().__init__(f"the harness failed on cluster worker {worker}: {error}; {kept}")
        self.worker, self.error, self.traceback = worker, error, traceback
