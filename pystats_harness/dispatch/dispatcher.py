"""The one place that decides where units run: on this machine, one after another, or on the workers of
the Dask cluster named by ``pystats.cluster`` (read here and nowhere else), as many at once as workers
take units.

``with open_dispatcher(ctx) as dispatcher: dispatcher.run(units, on_done, on_event)``: every unit's
result in the order of ``units``. On the cluster: the connection is opened for the run
(ClusterUnavailable, exit 18, when the scheduler does not answer, or when no worker can take units within
``pystats.cluster_wait`` seconds), each worker that takes no units is named once, a unit whose result
this machine already keeps (:meth:`~pystats_harness.dispatch.units.Work.cached`) is not sent, and a
unit that failed on a worker for its revision's own reasons comes back as data
(:class:`~pystats_harness.dispatch.worker.RemoteFailure`) and is raised here as :class:`UnitFailed`,
with the exit code the same failure has locally.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from pystats_harness.builder.obtain import plan_for
from pystats_harness.cluster.client import Cluster
from pystats_harness.dispatch.runner import carry_out, lookup, unit_on_worker
from pystats_harness.dispatch.units import THIS_MACHINE, Attempt, Emit, Unit
from pystats_harness.dispatch.worker import RemoteFailure
from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context

R = TypeVar("R")
Done = Callable[[int, Any], None]  # a unit's index and result, as it completes

__all__ = ["Dispatcher", "UnitFailed", "open_dispatcher", "this_machine"]


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


class Dispatcher:
    """Runs units: here (``cluster`` None: ``width`` 1) or on the cluster's workers (``width``: those that
    take units now). ``where`` names it; ``unfit``: workers that take none, and why; ``sent``: units sent
    to workers."""

    def __init__(self, ctx: Context, cluster: Cluster[Any, Any] | None = None) -> None:
        self.ctx, self.cluster, self.sent = ctx, cluster, 0

    @property
    def width(self) -> int:
        return 1 if self.cluster is None else max(1, self.cluster.size)

    @property
    def where(self) -> str:
        return THIS_MACHINE if self.cluster is None else self.cluster.address

    @property
    def unfit(self) -> dict[str, str]:
        return {} if self.cluster is None else dict(self.cluster.workers.unfit)

    @property
    def on_cluster(self) -> bool:
        """The units go to cluster workers (a report names the cluster and who measured what)."""
        return self.cluster is not None

    def run(self, units: Sequence[Unit[R]], on_done: Done | None = None, on_event: Emit | None = None) -> list[R]:
        """Every unit's result, in order; ``on_done(index, result)`` as each completes and
        ``on_event(message)`` as a unit reports progress (its ``name``: the worker, "" here), in this thread."""
        if self.cluster is None:
            return self._here(units, on_done, on_event or (lambda message: None))
        return self._there(self.cluster, units, on_done, on_event)

    def _here(self, units: Sequence[Unit[R]], on_done: Done | None, on_event: Emit) -> list[R]:
        results = []
        for index, unit in enumerate(units):
            results.append(carry_out(self.ctx, unit, lambda message: on_event({**message, "name": ""})))
            if on_done is not None:
                on_done(index, results[-1])
        return results

    def _there(
        self, cluster: Cluster[Any, Any], units: Sequence[Unit[R]], on_done: Done | None, on_event: Emit | None
    ) -> list[R]:
        results: dict[int, R] = {i: hit for i, unit in enumerate(units) if (hit := kept(self.ctx, unit)) is not None}
        todo = [i for i in range(len(units)) if i not in results]
        for index, hit in results.items():  # in the order of ``units``
            if on_done is not None:
                on_done(index, hit)

        def done(n: int, answer: R | RemoteFailure) -> None:
            if isinstance(answer, RemoteFailure):
                raise_failure(answer)
            units[todo[n]].work.keep(self.ctx, answer)
            results[todo[n]] = answer
            if on_done is not None:
                on_done(todo[n], answer)

        self.sent += len(todo)
        if todo:
            cluster.run_units(unit_on_worker, [units[i] for i in todo], done, on_event)
        return [results[i] for i in range(len(units))]


def kept(ctx: Context, unit: Unit[R]) -> R | None:
    """The unit's result as this machine keeps it, looked up with the plan made here (none where this
    machine cannot plan the recipe, no engine say: the workers decide)."""
    if not unit.work.keeps_results:
        return None
    try:
        attempt = Attempt(unit.recipe, plan=plan_for(ctx, unit.recipe))
    except HarnessError:
        return None
    return lookup(ctx, unit.work, attempt)[1]


@contextmanager
def open_dispatcher(ctx: Context) -> Iterator[Dispatcher]:
    """This machine's dispatcher with ``pystats.cluster`` empty, else the cluster's, connected for the run."""
    address = ctx.settings.cluster
    if not address:
        yield Dispatcher(ctx)
        return
    with Cluster[Any, Any](address, wait=ctx.settings.cluster_wait, say=ctx.reporter.warn) as cluster:
        warn_unfit(ctx, cluster.workers.unfit, set())
        named = set(cluster.workers.unfit)
        try:
            yield Dispatcher(ctx, cluster)
        finally:
            warn_unfit(ctx, cluster.workers.unfit, named)


def this_machine(ctx: Context) -> Dispatcher:
    """Units on this machine whatever ``pystats.cluster`` says (a bisect's confirmation: fresh runs here)."""
    return Dispatcher(ctx)


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
