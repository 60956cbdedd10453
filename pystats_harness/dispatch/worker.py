"""What every unit of work needs on its worker: the worker's own context (settings from its environment:
its cache, engine, image, ``mirror_remote``), the fitness check, the commit fetched into its own mirror,
and every failure said for what it is:

* the revision's own failure (checkout, patch, build, fingerprint, a run): units never raise for it; it
  travels back as data (:class:`RemoteFailure`, or a skipped commit in bisect and history) and the client
  exits with that error's code;
* a setting or the environment of the worker (:data:`WORKER_LEVEL`: a ``ConfigError``, no engine, no
  image, no mirror, a full disk): :class:`~pystats_harness.cluster.client.Unfit`, the worker takes no
  more units and this one goes to another;
* anything else (a bare ``HarnessError``, an unexpected exception: a harness bug):
  :class:`~pystats_harness.cluster.client.Fault`, its traceback kept under the worker's cache
  (``unit_failures``); the run ends naming the worker, the error and that file.
"""

from __future__ import annotations

import os
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pystats_harness.cluster.client import Fault, Unfit, worker_name
from pystats_harness.cluster.health import worker_fitness
from pystats_harness.config import settings_from_environment
from pystats_harness.errors import (
    BuildFailed,
    CheckoutFailed,
    ConfigError,
    DiskFull,
    EndpointsDoNotDiffer,
    EngineUnavailable,
    HarnessError,
    ImageError,
    MirrorError,
    MissingCounters,
    ReleaseImportError,
    RevisionNotFound,
)
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror

R = TypeVar("R")

#: Errors that say the worker cannot take units at all: its units go to the other workers.
WORKER_LEVEL = (ConfigError, EngineUnavailable, ImageError, MirrorError, DiskFull, ReleaseImportError)
#: Narrower cases of those that are about the revision or the run's own input, not the worker.
NOT_WORKER_LEVEL = (CheckoutFailed, MissingCounters, EndpointsDoNotDiffer)


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


def on_worker(work: Callable[[Context, str], R], failed: Callable[[HarnessError, str], R]) -> R | Unfit | Fault:
    """A unit's body on its worker: :class:`Unfit` when the worker cannot take units (before or while
    working), ``failed(error, worker)`` for the revision's own errors, :class:`Fault` for a harness bug,
    else ``work(context, worker)``."""
    name, why = worker_name(), fitness()  # why: no engine, no builder image
    if why:
        return Unfit(name, why)
    try:
        return work(worker_context(), name)
    except WORKER_LEVEL as exc:
        if isinstance(exc, NOT_WORKER_LEVEL):
            return failed(exc, name)
        return unfit(name, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    except HarnessError as exc:
        if type(exc) is HarnessError:
            return fault(name, exc)
        return failed(exc, name)
    except Exception as exc:
        return fault(name, exc)


_FITNESS: dict[str, bool] = {}  # "fit": this worker process was found fit (not checked again until unfit)


def fitness() -> str:
    """This worker's fitness, checked when it first takes a unit ("" = fit), and again while it is not."""
    if _FITNESS.get("fit"):
        return ""
    why = worker_fitness()
    _FITNESS["fit"] = not why
    return why


def unfit(name: str, why: str) -> Unfit:
    """This worker cannot take units now (the client sends it no more; a later client checks it again)."""
    _FITNESS["fit"] = False
    return Unfit(name, why)


def fault(name: str, exc: BaseException) -> Fault:
    """A harness bug on this worker: its traceback into the worker's cache (``unit_failures``)."""
    error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    try:
        where = worker_context().settings.paths.unit_failures
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{time.strftime('%Y%m%dT%H%M%S')}-{name}-{uuid.uuid4().hex[:8]}.txt"
        path.write_text("".join(traceback.format_exception(exc)))
    except Exception:  # the traceback cannot be kept: the error is still named
        return Fault(name, error, "")
    return Fault(name, error, str(path))


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
