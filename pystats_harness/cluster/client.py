"""The connection to a Dask cluster: the only module that imports dask (distributed).

A unit of work is any picklable value and a module-level function that carries it out on a worker
(``fn(unit) -> result``); the cluster knows nothing about builds. A unit's first task needs the worker
resource ``build`` (workers start with ``--resources build=1``), so a worker builds one revision at a
time; a unit that answers :class:`~pystats_harness.cluster.units.Then` goes on in tasks without it, on
the worker holding the build, while that worker builds the next revision.

Units go to any fit worker, joined before or during the run: a worker is checked when it is first seen
and when it first takes a unit; one that answers :class:`Unfit` gets no more units from this client (the
client names the worker of every task) and its unit goes to another. The client hands out one unit per free build
slot and names the worker, so a worker that joins takes the next one. A worker that dies mid-unit: the unit runs again on
another (a half cache entry on the dead worker has no completion marker and is never served). With no
fit worker left the client waits ``wait`` seconds for one, then NoUsableWorker (exit 18) names every
worker and why; a scheduler that stops answering is ClusterUnavailable (exit 18) at once.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from contextlib import suppress
from types import TracebackType
from typing import Any, Generic, TypeVar

from pystats_harness.cluster.errors import ClusterUnavailable, NoUsableWorker
from pystats_harness.cluster.health import worker_fitness
from pystats_harness.cluster.units import Event, Fault, Then, Unfit, Workers
from pystats_harness.errors import HarnessError

__all__ = ["Cluster", "Fault", "Then", "Unfit", "Workers", "progress", "then", "worker_name"]

CONNECT_TIMEOUT = 10  # seconds to reach the scheduler
DEFAULT_WAIT = 120.0  # seconds without a fit worker before NoUsableWorker (pystats.cluster_wait)
POLL = 0.5  # seconds between looks at the cluster while units run
RESOURCE = "build"  # one build at a time per worker
TOPIC = "pystats-progress"  # progress events of units (log_event on the worker, subscribe_topic here)
U = TypeVar("U")
R = TypeVar("R")


def worker_name() -> str:
    """The Dask name of the worker running the current task ("local" outside a worker)."""
    from distributed import get_worker

    try:
        return str(get_worker().name)
    except ValueError:
        return "local"


def then(parts: Sequence[tuple[Callable[[Any], Any], Any]], join: Callable[[list[Any]], Any]) -> Then:
    """A build task's :class:`Then`, its parts to run on this worker (the one holding the build)."""
    from distributed import get_worker

    return Then(tuple(parts), join, str(get_worker().address))


def progress() -> Event:
    """An emitter of progress events for the task running in this thread, usable from any thread of the
    worker (a no-op outside a worker): each message (msgpack-able values) reaches the client's ``on_event``
    with the worker's name (``name``), as it happens."""
    from distributed import get_worker

    try:
        worker = get_worker()
        key = str(worker.get_current_task())
    except (ValueError, KeyError):
        return lambda message: None
    name = str(worker.name)
    return lambda message: worker.log_event(TOPIC, {**message, "key": key, "name": name})  # "worker": its address


class Cluster(Generic[U, R]):
    """``with Cluster(address) as cluster: cluster.run_units(fn, units)``; ClusterUnavailable if the
    scheduler does not answer, NoUsableWorker if no worker can take units within ``wait`` seconds."""

    def __init__(
        self,
        address: str,
        *,
        timeout: float = CONNECT_TIMEOUT,
        min_workers: int = 0,
        wait: float = DEFAULT_WAIT,
        fitness: Callable[[], str] = worker_fitness,
        say: Callable[[str], None] = lambda line: None,
    ) -> None:
        """``min_workers``: wait (up to a minute) until that many workers have registered; ``fitness``
        runs on each worker when it is first seen ("" = fit); ``say`` gets a line when the run waits."""
        self.address, self.timeout, self.min_workers, self.wait = address, timeout, min_workers, wait
        self.fitness, self.say = fitness, say
        self.workers = Workers()
        self._seen: set[str] = set()
        self._client: Any = None

    def __enter__(self) -> Cluster[U, R]:
        from distributed import Client

        try:
            self._client = Client(self.address, timeout=self.timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterUnavailable(
                f"the Dask scheduler at {self.address} (pystats.cluster) does not answer: {str(exc).splitlines()[0]}; "
                "nothing was started; start it (dask scheduler, or invoke cluster-local) or set pystats.cluster empty",
                address=self.address,
            ) from None
        try:
            if self.min_workers:
                self._await_workers()
            self.refresh()
            self._await_fit()
        except BaseException:
            self._client.close()
            raise
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if self._client is not None:
            with suppress(Exception):
                self._client.close(timeout=self.timeout)

    def _await_workers(self) -> None:
        try:
            self._client.wait_for_workers(self.min_workers, timeout=60)
        except TimeoutError:
            raise ClusterUnavailable(
                f"fewer than {self.min_workers} workers registered with {self.address} within 60 s",
                address=self.address,
            ) from None

    @property
    def size(self) -> int:
        """Workers that take units now (K of a k-ary bisect)."""
        return len(self.workers.fit)

    def alive(self) -> None:
        """ClusterUnavailable (exit 18) once the scheduler stopped answering: its futures are lost."""
        if self._client.status not in ("running", "newly-created"):
            raise ClusterUnavailable(
                f"the Dask scheduler at {self.address} stopped answering during the run; the units still out are "
                "lost and nothing was written; start it again and re-run (finished results are kept)",
                address=self.address,
            )

    def refresh(self) -> list[str]:
        """Check workers seen for the first time; fit workers that left become gone (their addresses)."""
        try:
            info = self._client.scheduler_info(n_workers=-1)["workers"]
        except (OSError, TimeoutError, CancelledError):
            self.alive()
            raise
        new = [address for address in info if address not in self._seen]
        self._seen.update(new)
        if new:
            reasons = self._check(new, info)
            for address in new:
                self.workers.joined(address, str(info[address].get("name", address)), reasons[address])
        return self.workers.lost(set(info))

    def _check(self, addresses: list[str], info: dict[str, Any]) -> dict[str, str]:
        """Why each of ``addresses`` cannot take units ("" = it can): resource, harness, engine, image."""
        has_harness = self._client.run(
            importlib.util.find_spec, "pystats_harness", workers=addresses, on_error="return"
        )
        usable = [
            a for a in addresses if has_harness.get(a) is not None and not isinstance(has_harness[a], BaseException)
        ]
        checks = self._client.run(self.fitness, workers=usable, on_error="return") if usable else {}
        reasons = {}
        for address in addresses:
            reasons[address] = ""
            if (info[address].get("resources") or {}).get(RESOURCE, 0) < 1:
                reasons[address] = f"started without --resources {RESOURCE}=1"
            elif address not in usable:
                reasons[address] = "pystats_harness is not importable in the worker's Python"
            elif isinstance(checks.get(address), BaseException) or checks.get(address):
                reasons[address] = str(checks.get(address))
        return reasons

    def unfit(self, found: Unfit) -> None:
        """A worker answered Unfit: this client gives it no more units (another client checks it again)."""
        self.workers.unfitted(found.worker, found.reason)

    def no_fit_since(self, since: float | None) -> float | None:
        """None while a worker is fit; else when the wait for one began (``since``, or now), and
        NoUsableWorker (exit 18, every worker and why) once it has lasted ``wait`` seconds."""
        if self.workers.fit:
            return None
        if since is None:
            since = time.monotonic()
            self.say(f"no fit worker on {self.address}; waiting up to {self.wait:g} s for one (pystats.cluster_wait)")
        if time.monotonic() - since >= self.wait:
            raise NoUsableWorker(self.address, self.workers.every_reason())
        return since

    def _await_fit(self) -> None:
        since = self.no_fit_since(None)
        while since is not None:
            time.sleep(POLL)
            self.refresh()
            since = self.no_fit_since(since)

    def submit(self, fn: Callable[[Any], Any], arg: Any, key: str, *, on: str, slot: bool) -> Any:
        """A task on the worker at ``on`` only: with ``slot``, a unit's build (it waits for that worker's
        ``build`` resource); else a part beside it. The client chooses the worker: Dask's placement
        does not see which build slots are free."""
        resources = {RESOURCE: 1} if slot else None
        return self._client.submit(
            fn, arg, key=key, pure=False, workers=[on], allow_other_workers=False, resources=resources
        )

    def cancel(self, futures: Sequence[Any]) -> None:
        if futures:
            with suppress(Exception):
                self._client.cancel(list(futures))

    def wait_any(self, futures: Sequence[Any], timeout: float) -> set[Any]:
        """The futures done within ``timeout`` seconds (as soon as one is)."""
        end = time.monotonic() + timeout
        while not (done := {f for f in futures if f.done()}) and time.monotonic() < end:
            time.sleep(0.05)
        return done

    def listen(self, handler: Callable[[Any], None] | None) -> None:
        """Progress events of units to ``handler`` (called in the client's thread); None stops them."""
        with suppress(Exception):
            if handler is None:
                self._client.unsubscribe_topic(TOPIC)
            else:
                self._client.subscribe_topic(TOPIC, handler)

    def run_units(
        self,
        fn: Callable[[U], R | Unfit | Fault | Then],
        units: Sequence[U],
        on_done: Callable[[int, R], None] | None = None,
        on_event: Event | None = None,
    ) -> list[R]:
        """Carry out every unit on the workers, as they free up; results in the order of ``units``.
        ``on_done(index, result)`` as each unit completes; ``on_event(message)`` as a unit reports
        progress (:func:`progress`), both in this thread."""
        from pystats_harness.cluster.run import Run

        return Run(self, fn, units, on_done, on_event).go()

    def outcome(self, future: Any) -> Any:
        """A finished task's value; a task lost with the scheduler is exit 18, one that raised (or killed
        too many workers) ends the run."""
        try:
            return future.result()
        except CancelledError:
            self.alive()
            raise
        except Exception as exc:
            raise HarnessError(f"a unit of work failed on the cluster: {type(exc).__name__}: {exc}") from None
