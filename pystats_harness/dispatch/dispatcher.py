"""The one place that decides where work runs: on this machine, or on the workers of the Dask cluster
named by ``pystats.cluster`` (read here and nowhere else).

A capability gives both ways (``here()`` and ``there(cluster)``); :func:`dispatch` picks one, opens the
connection for the cluster's way (ClusterUnavailable, exit 18, when the scheduler does not answer, or
when no worker can take units within ``pystats.cluster_wait`` seconds), names each worker that takes no
units once, and closes it when the work is done.
A unit that failed on a worker for its revision's own reasons comes back as data
(:class:`~pystats_harness.dispatch.worker.RemoteFailure`) and is raised here as :class:`UnitFailed`,
with the exit code the same failure has locally.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from pystats_harness.cluster.client import Cluster
from pystats_harness.dispatch.worker import RemoteFailure
from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context

T = TypeVar("T")
THIS_MACHINE = "this machine"  # where work runs when pystats.cluster is empty


class UnitFailed(HarnessError):
    """A unit failed on a worker for the revision's own reasons (its build failed, its fingerprint
    differs, ...): exits with the code the same failure has locally; carries the error's class name,
    the worker and a build's log tail."""

    def __init__(self, message: str, *, kind: str, exit_code: int, worker: str, log_tail: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.exit_code = exit_code
        self.worker = worker
        self.log_tail = tuple(log_tail)


@contextmanager
def dispatch(ctx: Context, here: Callable[[], T], there: Callable[[Cluster[Any, Any]], T]) -> Iterator[T]:
    """``here()`` with ``pystats.cluster`` empty, else ``there(cluster)`` while connected to it."""
    address = ctx.settings.cluster
    if not address:
        yield here()
        return
    with Cluster[Any, Any](address, wait=ctx.settings.cluster_wait, say=ctx.reporter.warn) as cluster:
        warn_unfit(ctx, cluster.workers.unfit, set())
        named = set(cluster.workers.unfit)
        try:
            yield there(cluster)
        finally:
            warn_unfit(ctx, cluster.workers.unfit, named)


def run_dispatched(ctx: Context, here: Callable[[], T], there: Callable[[Cluster[Any, Any]], T]) -> T:
    """:func:`dispatch` for work that is done once ``here()`` or ``there(cluster)`` returns."""
    with dispatch(ctx, here, there) as result:
        return result


def raise_failure(failure: RemoteFailure) -> NoReturn:
    """The worker's error, with its exit code, as the client's error (nothing parsed from the message)."""
    raise UnitFailed(
        f"{failure.message} (on cluster worker {failure.worker})",
        kind=failure.kind,
        exit_code=failure.exit_code,
        worker=failure.worker,
        log_tail=failure.log_tail,
    )


def warn_unfit(ctx: Context, unfit: dict[str, str], already: set[str]) -> None:
    """One warning per worker that takes no units (those in ``already`` were named before)."""
    for worker, why in sorted(unfit.items()):
        if worker not in already:
            ctx.reporter.warn(f"cluster worker {worker} takes no units: {why}")
