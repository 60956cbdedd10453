"""What every unit of work needs on its worker: the worker's own context (settings from its environment:
its cache, engine, image, ``mirror_remote``), the fitness check, the commit fetched into its own mirror,
and a harness error turned into data the client can report (class, exit code, message, log tail).

Units never raise for the commit's own reasons (a build that fails, a fingerprint that differs): they
return :class:`RemoteFailure`, and the client exits with that error's code. Errors that say the worker
cannot take units at all (:data:`WORKER_LEVEL`) become :class:`~pystats_harness.cluster.client.Unfit`,
and the unit goes to another worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pystats_harness.cluster.client import Unfit, worker_name
from pystats_harness.cluster.health import worker_fitness
from pystats_harness.config import settings_from_environment
from pystats_harness.errors import (
    BuildFailed,
    EngineUnavailable,
    HarnessError,
    ImageError,
    MirrorError,
    RevisionNotFound,
)
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo, Mirror

R = TypeVar("R")

#: Errors that say the worker cannot take units at all: its units go to the other workers.
WORKER_LEVEL = (EngineUnavailable, ImageError, MirrorError)


@dataclass(frozen=True)
class RemoteFailure:
    """A harness error raised on a worker, as data: the client exits with ``exit_code``."""

    kind: str  # the error's class name, e.g. "FingerprintFailed"
    exit_code: int
    message: str
    worker: str
    log_tail: tuple[str, ...] = ()

    @classmethod
    def of(cls, exc: HarnessError, worker: str) -> RemoteFailure:
        tail = tuple(exc.log_tail) if isinstance(exc, BuildFailed) else ()
        return cls(type(exc).__name__, exc.exit_code, str(exc), worker, tail)


def on_worker(work: Callable[[Context, str], R], failed: Callable[[HarnessError, str], R]) -> R | Unfit:
    """A unit's body on its worker: :class:`Unfit` when the worker cannot take units (before or while
    working), ``failed(error, worker)`` for the revision's own errors, else ``work(context, worker)``."""
    name, why = worker_name(), worker_fitness()  # why: no engine, no builder image
    if why:
        return Unfit(name, why)
    try:
        return work(worker_context(), name)
    except WORKER_LEVEL as exc:
        return Unfit(name, str(exc).splitlines()[0])
    except HarnessError as exc:
        return failed(exc, name)


def worker_context() -> Context:
    """The worker's own context: its settings from its environment (``INVOKE_PYSTATS_*``)."""
    return Context(settings_from_environment(os.environ))


def local_commit(ctx: Context, commit: CommitInfo) -> CommitInfo:
    """The commit in this worker's mirror, fetched from its ``mirror_remote`` when missing."""
    mirror = Mirror(ctx.settings.mirror_dir)
    if not mirror.exists():
        ctx.reporter.info(f"creating this worker's mirror from {ctx.settings.mirror_remote}")
        mirror.update(ctx.settings.mirror_remote)
    try:
        return mirror.resolve(commit.sha)
    except RevisionNotFound:
        ctx.reporter.info(f"fetching {commit.short} from {ctx.settings.mirror_remote}")
        mirror.update(ctx.settings.mirror_remote)
        return mirror.resolve(commit.sha)
