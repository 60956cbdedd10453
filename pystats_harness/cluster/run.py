"""One :meth:`~pystats_harness.cluster.client.Cluster.run_units` call: hand out units as build slots free
up, follow each unit's parts, take workers that join, requeue the units of workers that leave, and never
wait without limit (the cluster's ``wait`` when no fit worker is left). Knows the cluster only through
:class:`~pystats_harness.cluster.client.Cluster`'s methods (no dask here)."""

from __future__ import annotations

import queue
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pystats_harness.cluster.errors import WorkerFault
from pystats_harness.cluster.units import Event, Fault, Then, Unfit

REFRESH = 1.0  # seconds between looks at who is in the cluster
POLL = 0.5  # seconds a loop waits for a task to finish


@dataclass
class Job:
    """One unit on its way: its build task, then (after :class:`Then`) its parts and their values."""

    index: int
    worker: str = ""  # the address of the worker chosen for its build
    build: Any = None
    then: Then | None = None
    parts: list[Any] = field(default_factory=list)
    values: dict[int, Any] = field(default_factory=dict)

    def futures(self) -> list[Any]:
        return [self.build] if self.then is None else list(self.parts)


class Run:
    def __init__(
        self,
        cluster: Any,  # the Cluster (workers, alive, refresh, no_fit_since, submit, outcome, wait_any, cancel, listen)
        fn: Callable[[Any], Any],
        units: Sequence[Any],
        on_done: Callable[[int, Any], None] | None,
        on_event: Event | None,
    ) -> None:
        self.cluster, self.fn, self.units, self.on_done, self.on_event = cluster, fn, units, on_done, on_event
        self.tag = f"{getattr(fn, '__name__', 'unit')}-{uuid.uuid4().hex[:12]}"
        self.todo: deque[int] = deque(range(len(units)))
        self.jobs: dict[Any, Job] = {}  # every future out -> its job
        self.results: dict[int, Any] = {}
        self.events: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self.sent = 0

    def go(self) -> list[Any]:
        self.cluster.listen(self._event if self.on_event else None)
        try:
            self._loop()
        except BaseException:  # Ctrl-C, exit 18 or a failure: no unit goes on for nothing
            self.cluster.cancel(list(self.jobs))
            raise
        finally:
            self.cluster.listen(None)
        self._events()
        return [self.results[i] for i in range(len(self.units))]

    def _loop(self) -> None:
        since, looked = None, time.monotonic()
        while len(self.results) < len(self.units):
            self.cluster.alive()
            if time.monotonic() - looked >= REFRESH:
                for address in self.cluster.refresh():
                    self._left(address)
                looked = time.monotonic()
            since = self.cluster.no_fit_since(since)
            self._feed()
            done = self.cluster.wait_any(list(self.jobs), timeout=POLL)
            self._events()
            for future in done:
                if future in self.jobs:
                    self._settle(future, self.jobs.pop(future))

    def _feed(self) -> None:
        """A build task for each fit worker whose build slot is free (so a worker that joins takes the next)."""
        held = {job.worker for job in self.jobs.values() if job.then is None}
        for address in [a for a in self.cluster.workers.fit if a not in held]:
            if not self.todo:
                return
            job = Job(self.todo.popleft(), address)
            self.sent += 1
            key = f"{self.tag}-{job.index}-{self.sent}"
            job.build = self.cluster.submit(self.fn, self.units[job.index], key, on=address, slot=True)
            self.jobs[job.build] = job

    def _settle(self, future: Any, job: Job) -> None:
        value = self.cluster.outcome(future)
        if isinstance(value, Fault):
            raise WorkerFault(value.worker, value.error, value.traceback)
        if isinstance(value, Unfit):
            self.cluster.unfit(value)
            self._again(job)
        elif future is job.build and isinstance(value, Then):
            self._parts(job, value)
        elif future is job.build:
            self._done(job.index, value)
        else:
            job.values[job.parts.index(future)] = value
            if job.then is not None and len(job.values) == len(job.parts):
                self._done(job.index, job.then.join([job.values[i] for i in range(len(job.parts))]))

    def _parts(self, job: Job, value: Then) -> None:
        job.then = value
        for n, (fn, arg) in enumerate(value.parts):
            key = f"{self.tag}-{job.index}-{self.sent}-part{n}"
            job.parts.append(self.cluster.submit(fn, arg, key, on=value.address, slot=False))
            self.jobs[job.parts[-1]] = job
        if not value.parts:
            self._done(job.index, value.join([]))

    def _done(self, index: int, value: Any) -> None:
        self.results[index] = value
        if self.on_done is not None:
            self._events()  # a unit's progress lines before its result
            self.on_done(index, value)

    def _again(self, job: Job) -> None:
        """The unit starts over on another worker (its worker is unfit or gone)."""
        out = [f for f in job.futures() if f in self.jobs]
        for future in out:
            del self.jobs[future]
        self.cluster.cancel(out)
        self.todo.appendleft(job.index)

    def _left(self, address: str) -> None:
        """The units of a worker that left (its build, or parts on the build it held) start over."""
        for job in {id(j): j for j in self.jobs.values()}.values():
            if (job.then.address if job.then is not None else job.worker) == address:
                self._again(job)

    def _event(self, event: Any) -> None:
        """Called in the client's event loop: keep this run's messages for this thread."""
        message = event[1] if isinstance(event, tuple | list) and len(event) == 2 else event
        if isinstance(message, dict) and str(message.get("key", "")).startswith(self.tag):
            self.events.put(message)

    def _events(self) -> None:
        while self.on_event is not None:
            try:
                message = self.events.get_nowait()
            except queue.Empty:
                return
            self.on_event(message)
