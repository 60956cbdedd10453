"""The connection to a Dask cluster: the only module that imports dask (distributed).

A unit of work is any picklable value and a module-level function that carries it out on a worker
(``fn(unit) -> result``); the cluster knows nothing about builds. Every unit needs the worker resource
``build`` (workers start with ``--resources build=1``), so a worker builds one revision at a time.
A worker that dies mid-unit: Dask sends the unit to another worker (its half cache entry on the dead
worker has no completion marker and is never served). A worker that returns :class:`Unfit` (no Docker
engine, say) gets no more units; its unit is sent to the others and the report names it.
"""

from __future__ import annotations

import importlib.util
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Generic, TypeVar

from pystats_harness.cluster.errors import ClusterUnavailable, NoUsableWorker
from pystats_harness.cluster.health import worker_fitness
from pystats_harness.errors import HarnessError

CONNECT_TIMEOUT = 10  # seconds to reach the scheduler
RESOURCE = "build"  # one unit at a time per worker: one build (and its runs) at a time
U = TypeVar("U")
R = TypeVar("R")


@dataclass(frozen=True)
class Unfit:
    """What a unit's function returns when its worker cannot take units at all (not the unit's fault)."""

    worker: str
    reason: str


def worker_name() -> str:
    """The Dask name of the worker running the current task ("local" outside a worker)."""
    from distributed import get_worker

    try:
        return str(get_worker().name)
    except ValueError:
        return "local"


@dataclass
class Workers:
    """The workers units go to (address -> name), and the ones left out with their reason (by name)."""

    fit: dict[str, str] = field(default_factory=dict)
    unfit: dict[str, str] = field(default_factory=dict)


class Cluster(Generic[U, R]):
    """``with Cluster(address) as cluster: cluster.run_units(fn, units)``; ClusterUnavailable if the
    scheduler does not answer, NoUsableWorker if no worker can take units."""

    def __init__(self, address: str, *, timeout: float = CONNECT_TIMEOUT, min_workers: int = 0) -> None:
        """``min_workers``: wait (up to a minute) until that many workers have registered."""
        self.address, self.timeout, self.min_workers = address, timeout, min_workers
        self.workers = Workers()
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
        if self.min_workers:
            try:
                self._client.wait_for_workers(self.min_workers, timeout=60)
            except TimeoutError:
                self._client.close()
                raise ClusterUnavailable(
                    f"fewer than {self.min_workers} workers registered with {self.address} within 60 s",
                    address=self.address,
                ) from None
        self._check_workers()
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if self._client is not None:
            self._client.close()

    def _check_workers(self) -> None:
        """Ask every worker whether it has the harness, a Docker engine and the builder image."""
        info = self._client.scheduler_info(n_workers=-1)["workers"]
        names = {addr: str(w.get("name", addr)) for addr, w in info.items()}
        has_harness = self._client.run(importlib.util.find_spec, "pystats_harness", on_error="return")
        fit_checks = self._client.run(worker_fitness, on_error="return")
        for addr, name in names.items():
            why = ""
            if (info[addr].get("resources") or {}).get(RESOURCE, 0) < 1:
                why = f"started without --resources {RESOURCE}=1"
            elif has_harness.get(addr) is None or isinstance(has_harness.get(addr), BaseException):
                why = "pystats_harness is not importable in the worker's Python"
            elif isinstance(fit_checks.get(addr), BaseException) or fit_checks.get(addr):
                why = str(fit_checks.get(addr))
            if why:
                self.workers.unfit[name] = why
            else:
                self.workers.fit[addr] = name
        if not self.workers.fit:
            raise NoUsableWorker(self.address, self.workers.unfit)

    @property
    def size(self) -> int:
        """Workers that take units (K of a k-ary bisect)."""
        return len(self.workers.fit)

    def _submit(self, fn: Callable[[U], R | Unfit], unit: U, label: str) -> Any:
        return self._client.submit(
            fn,
            unit,
            key=f"{label}-{uuid.uuid4().hex[:12]}",
            pure=False,
            resources={RESOURCE: 1},
            workers=list(self.workers.fit),
            allow_other_workers=False,
        )

    def run_units(
        self, fn: Callable[[U], R | Unfit], units: Sequence[U], on_done: Callable[[int, R], None] | None = None
    ) -> list[R]:
        """Carry out every unit on the workers, as they free up; results in the order of ``units``.
        ``on_done(index, result)`` is called as each unit completes."""
        label = getattr(fn, "__name__", "unit")
        pending = {self._submit(fn, unit, label): i for i, unit in enumerate(units)}
        try:
            return self._gather(fn, units, pending, label, on_done)
        except BaseException:  # Ctrl-C or a failure: no unit goes on for nothing
            self._client.cancel(list(pending))
            raise

    def _gather(
        self,
        fn: Callable[[U], R | Unfit],
        units: Sequence[U],
        pending: dict[Any, int],
        label: str,
        on_done: Callable[[int, R], None] | None,
    ) -> list[R]:
        from distributed import as_completed

        results: dict[int, R] = {}
        queue = as_completed(list(pending), loop=self._client.loop)
        for future in queue:
            index = pending.pop(future)
            try:
                result = future.result()
            except Exception as exc:  # the function raised or the unit killed too many workers
                raise HarnessError(f"a unit of work failed on the cluster: {type(exc).__name__}: {exc}") from None
            if isinstance(result, Unfit):
                self.workers.unfit[result.worker] = result.reason
                self.workers.fit = {a: n for a, n in self.workers.fit.items() if n != result.worker}
                if not self.workers.fit:
                    raise NoUsableWorker(self.address, self.workers.unfit)
                retry = self._submit(fn, units[index], label)
                pending[retry] = index
                queue.add(retry)
                continue
            results[index] = result
            if on_done is not None:
                on_done(index, result)
        return [results[i] for i in range(len(units))]
