"""A unit of work: a :class:`~pystats_harness.builder.recipe.Recipe` (what to build) and a :class:`Work`
(what to measure with it). Every capability says once, in its :class:`Work`, what a unit does when its
build is there; :mod:`~pystats_harness.dispatch.runner` gets the build and calls it, here or on a Dask
worker, and :mod:`~pystats_harness.dispatch.dispatcher` decides where.

A :class:`Work` is a frozen, picklable value (it travels to a worker as it is) with:

* :meth:`Work.run`: measure with the build (:class:`Attempt` says which, whether it was built, how long
  planning and building took, on which worker); progress goes out through ``emit`` (a dict per message,
  as the client's ``on_event`` receives it);
* :meth:`Work.failed`: the revision's own failure (it does not plan, patch, build or run) as a result of
  this work (a bisect's skipped commit), or None: the error ends the run, with its own exit code;
* :meth:`Work.parts` and :meth:`Work.join`: work that splits in pieces measured one after another here,
  beside each other on the worker holding the build (``beside_builds``: without that worker's build
  slot, so the next unit's build overlaps);
* :meth:`Work.cached` and :meth:`Work.keep`: a result already measured (the results store), looked up
  before any build, and a result that came back from a worker, kept on this machine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from pystats_harness.builder.obtain import Obtained
from pystats_harness.builder.plan import BuildPlan
from pystats_harness.builder.recipe import Recipe
from pystats_harness.infra.context import Context

R = TypeVar("R")
Emit = Callable[[dict[str, Any]], None]  # a unit's progress message (msgpack-able values)
THIS_MACHINE = "this machine"  # where units run when pystats.cluster is empty


@dataclass(frozen=True)
class Attempt:
    """How far a unit got: its recipe, the worker ("" on this machine), its plan and its build once there,
    whether a build ran (a failed one included) and the seconds planning and building took."""

    recipe: Recipe
    worker: str = ""
    plan: BuildPlan | None = None
    obtained: Obtained | None = None
    built: bool = False
    seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def build(self) -> Obtained:
        """The build (only :meth:`Work.run` asks, and it runs once the build is there)."""
        if self.obtained is None:
            raise RuntimeError("the unit's build is not there yet")
        return self.obtained


class Work(Generic[R]):
    """What a unit measures once its build is there (subclasses are frozen dataclasses)."""

    #: Its parts run beside each other on the worker holding the build, without its build slot.
    beside_builds: ClassVar[bool] = False
    #: It keeps results (:meth:`cached`, :meth:`keep`): the dispatcher looks them up before sending units.
    keeps_results: ClassVar[bool] = False

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> R:
        raise NotImplementedError

    def failed(self, ctx: Context, attempt: Attempt, error: Exception) -> R | None:
        """The revision's own ``error`` as this work's result, or None to raise it (the default)."""
        return None

    def parts(self) -> Sequence[Work[R]]:
        return (self,)

    def join(self, results: list[R]) -> R:
        """The unit's result from its parts' results (in the order of :meth:`parts`)."""
        (result,) = results
        return result

    def cached(self, ctx: Context, attempt: Attempt) -> R | None:
        """A result already measured for the build ``attempt`` planned (no build, no run), or None; it
        names ``attempt.worker`` as where it was found ("" on this machine)."""
        return None

    def keep(self, ctx: Context, result: R) -> None:
        """A result a cluster worker sent back, kept on this machine (for the next :meth:`cached`)."""


@dataclass(frozen=True)
class Unit(Generic[R]):
    recipe: Recipe
    work: Work[R]
