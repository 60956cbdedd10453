"""Errors of the scale-out (beneath the one root, :class:`pystats_harness.errors.HarnessError`)."""

from __future__ import annotations

from collections.abc import Sequence

from pystats_harness.errors import HarnessError


class ClusterUnavailable(HarnessError):
    """The configured Dask scheduler does not answer (or has no usable worker); nothing was started."""

    exit_code = 18

    def __init__(self, message: str, *, address: str) -> None:
        super().__init__(message)
        self.address = address


class NoUsableWorker(ClusterUnavailable):
    """Every worker of the cluster is unfit (no Docker engine, no harness); carries each one's reason."""

    def __init__(self, address: str, unfit: dict[str, str]) -> None:
        named = "; ".join(f"{worker}: {why}" for worker, why in sorted(unfit.items())) or "no worker connected"
        super().__init__(f"the Dask cluster at {address} has no usable worker ({named})", address=address)
        self.unfit = dict(unfit)


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


class MixedBuilds(HarnessError):
    """The units of one cluster collect came back measured with different builds; nothing is summed or
    written. Carries each build key and the workers that used it."""

    exit_code = 28

    def __init__(self, message: str, *, keys: dict[str, tuple[str, ...]]) -> None:
        super().__init__(message)
        self.keys = dict(keys)
