"""A unit's failures on its worker say what they are: the revision's (data for the client), the worker's
(Unfit: no more units there) or the harness's (Fault: the traceback kept in the worker's cache)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pystats_harness import errors
from pystats_harness.cluster.client import Fault, Unfit
from pystats_harness.dispatch import worker
from pystats_harness.infra.context import Context


@pytest.fixture(autouse=True)
def fit_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A worker process whose fitness check passed (no engine is needed to classify errors)."""
    monkeypatch.setenv("INVOKE_PYSTATS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(worker, "_FITNESS", {"fit": True})
    yield tmp_path / "cache"


def _raising(exc: BaseException) -> object:
    def work(ctx: Context, name: str) -> object:
        raise exc

    return worker.on_worker(work, lambda error, name: ("failed", type(error).__name__))


@pytest.mark.parametrize(
    "exc",
    [
        errors.BuildFailed(phase="make", commit="abc", status=2, log_tail=["x"], log_path=Path("/l")),
        errors.CheckoutFailed("a" * 40, "unable to read tree"),
        errors.PatchError("does not apply"),
        errors.VerificationFailed("fingerprint"),
        errors.MissingCounters("none of its counters", names=["a"]),
        errors.RunFailed("timed out"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_the_revisions_failure_comes_back_as_data(exc: errors.HarnessError) -> None:
    assert _raising(exc) == ("failed", type(exc).__name__)


@pytest.mark.parametrize(
    "exc",
    [
        errors.ConfigError("setting pystats.run_memory='x' is not a size"),
        errors.EngineUnavailable("no docker"),
        errors.ImageError("no image"),
        errors.MirrorError("cannot fetch"),
        errors.DiskFull(Path("/cache"), "building"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_worker_problem_makes_the_worker_unfit(exc: errors.HarnessError, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _raising(exc)
    assert isinstance(first, Unfit) and type(exc).__name__ in first.reason and str(exc) in first.reason
    monkeypatch.setattr(worker, "worker_fitness", lambda: "no usable Docker engine: gone")
    later = worker.on_worker(lambda ctx, name: "worked", lambda error, name: "failed")
    assert later == Unfit(first.worker, "no usable Docker engine: gone")  # checked again, not taken on trust


@pytest.mark.parametrize("exc", [KeyError("x"), errors.HarnessError("cannot write the results store")])
def test_a_harness_bug_is_a_fault_with_its_traceback_kept(exc: Exception, fit_worker: Path) -> None:
    fault = _raising(exc)
    assert isinstance(fault, Fault) and fault.error.startswith(type(exc).__name__)
    kept = Path(fault.traceback)
    assert kept.parent == fit_worker / "cluster-failures" and "Traceback" in kept.read_text()
    assert type(exc).__name__ in kept.read_text()
