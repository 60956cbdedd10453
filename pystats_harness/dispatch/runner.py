"""The one function that carries out a unit: plan its recipe, look its result up, get the build (the
only call of :func:`~pystats_harness.builder.obtain.obtain` besides ``invoke build``), then measure.

:func:`carry_out` does it in this process; :func:`unit_on_worker` is the same on a Dask worker (the
worker's own context and mirror, every failure said for what it is, :mod:`.worker`), answering
:class:`~pystats_harness.cluster.client.Then` when the work measures beside the next unit's build.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.cluster.client import progress, then
from pystats_harness.dispatch.units import Attempt, Emit, Unit, Work
from pystats_harness.dispatch.worker import RemoteFailure, local_commit, on_worker
from pystats_harness.infra.context import Context

R = TypeVar("R")
Answer = Any  # R | RemoteFailure | Then | Unfit | Fault: what a task on a worker sends back


def carry_out(ctx: Context, unit: Unit[R], emit: Emit, worker: str = "") -> R:
    """``unit``'s result: its build obtained, then its work, part after part (a result the work keeps
    needs no build); the revision's own failure is the work's failed result, or raised."""
    attempt, hits = prepare(ctx, unit, worker)
    if isinstance(attempt, Finished):
        return attempt.result
    return run_parts(ctx, unit.work, attempt, hits, emit)


@dataclass(frozen=True)
class Finished:
    """A unit done before its build: every part's result stored, or the revision failed."""

    result: Any


def prepare(ctx: Context, unit: Unit[R], worker: str) -> tuple[Attempt | Finished, list[R | None]]:
    """Plan, look up each part's result, and obtain the build when a part needs it."""
    attempt, start = Attempt(unit.recipe, worker), time.perf_counter()
    try:
        plan = plan_for(ctx, unit.recipe)
        attempt = replace(attempt, plan=plan, seconds={"plan": time.perf_counter() - start})
        hits, whole = lookup(ctx, unit.work, attempt)
        if whole is not None:
            return Finished(whole), hits
        building = time.perf_counter()
        attempt = replace(attempt, built=True)  # until the cache answers: a failed build ran
        try:
            obtained = obtain(ctx, plan)
        finally:
            attempt = replace(attempt, seconds={**attempt.seconds, "build": time.perf_counter() - building})
        return replace(attempt, obtained=obtained, built=obtained.built), hits
    except Exception as exc:
        return Finished(failed(ctx, unit.work, attempt, exc)), []


def lookup(ctx: Context, work: Work[R], attempt: Attempt) -> tuple[list[R | None], R | None]:
    """Each part's kept result (None: to measure), and the unit's result when every part was kept."""
    hits = [part.cached(ctx, attempt) for part in work.parts()]
    kept = [hit for hit in hits if hit is not None]
    return hits, work.join(kept) if len(kept) == len(hits) else None


def run_parts(ctx: Context, work: Work[R], attempt: Attempt, hits: list[R | None], emit: Emit) -> R:
    """Each part not found kept, measured with the build, one after another; the unit's result."""
    parts = work.parts()
    return work.join(
        [hit if hit is not None else run_part(ctx, p, attempt, emit) for p, hit in zip(parts, hits, strict=True)]
    )


def run_part(ctx: Context, part: Work[R], attempt: Attempt, emit: Emit) -> R:
    try:
        return part.run(ctx, attempt, emit)
    except Exception as exc:
        return failed(ctx, part, attempt, exc)


def failed(ctx: Context, work: Work[R], attempt: Attempt, exc: Exception) -> R:
    """The work's result for the revision's failure ``exc``, or ``exc`` raised."""
    result = work.failed(ctx, attempt, exc)
    if result is None:
        raise exc
    return result


# On a Dask worker: the same steps, answered as data.


def unit_on_worker(unit: Unit[R]) -> Answer:
    """Run on a worker, holding its build slot: the unit's result, or :class:`Then` its parts beside the
    next build (``beside_builds``); the revision's failure that its work does not take is a
    :class:`RemoteFailure` (the client raises it with the local exit code)."""
    return on_worker(lambda ctx, name: _build_there(ctx, unit, name), RemoteFailure.of)


def _build_there(ctx: Context, unit: Unit[R], name: str) -> Answer:
    try:
        unit = Unit(unit.recipe.at(local_commit(ctx, unit.recipe.commit)), unit.work)
    except Exception as exc:  # not in the worker's mirror, nor at its mirror_remote
        return failed(ctx, unit.work, Attempt(unit.recipe, name), exc)
    emit = progress()
    attempt, hits = prepare(ctx, unit, name)
    if isinstance(attempt, Finished):
        return attempt.result
    if not unit.work.beside_builds:
        return run_parts(ctx, unit.work, attempt, hits, emit)
    pieces = [(part_on_worker, (part, attempt, hit)) for part, hit in zip(unit.work.parts(), hits, strict=True)]
    return then(pieces, partial(join_there, unit.work))


def part_on_worker(piece: tuple[Work[R], Attempt, R | None]) -> Answer:
    """Run on the worker holding the build (without its build slot): one part of a unit."""
    part, attempt, hit = piece
    if hit is not None:
        return hit
    return on_worker(lambda ctx, name: run_part(ctx, part, attempt, progress()), RemoteFailure.of)


def join_there(work: Work[R], results: list[Any]) -> R | RemoteFailure:
    """The unit's result from its parts' answers (a part's failure is the unit's)."""
    failure = next((r for r in results if isinstance(r, RemoteFailure)), None)
    return failure if failure is not None else work.join(results)
