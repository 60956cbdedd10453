"""What a unit's function may answer besides its result, and who takes units: plain data, no dask.

* :class:`Unfit`: the worker cannot take units at all (no engine, a bad setting): not the unit's fault;
  the worker takes no more units and the unit goes to another.
* :class:`Fault`: an unexpected error of the harness on the worker: the run ends naming the worker, the
  error and where the worker kept its traceback (never a skipped commit).
* :class:`Then`: the build is done; the unit goes on in ``parts`` that need no build resource, on the
  worker that holds the build, while that worker's build slot takes the next unit's build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Event = Callable[[dict[str, Any]], None]  # a unit's progress message, as the client receives it


@dataclass(frozen=True)
class Unfit:
    """What a unit's function returns when its worker cannot take units at all (not the unit's fault)."""

    worker: str
    reason: str


@dataclass(frozen=True)
class Fault:
    """An unexpected error on a worker (a harness bug, not the revision's failure): it ends the run."""

    worker: str
    error: str  # "KeyError: 'x'"
    traceback: str  # the file on the worker's host holding the traceback ("" if it could not be written)


@dataclass(frozen=True)
class Then:
    """A build task's answer when its unit goes on without the build resource: each ``(fn, argument)`` of
    ``parts`` runs on the worker at ``address`` (the one holding the build), as its threads allow; the
    unit's result is ``join(results of the parts, in order)``. ``fn`` and ``join`` are module-level."""

    parts: tuple[tuple[Callable[[Any], Any], Any], ...]
    join: Callable[[list[Any]], Any]
    address: str


@dataclass
class Workers:
    """Who takes units (address -> name), who does not and why (by name), who left during the run."""

    fit: dict[str, str] = field(default_factory=dict)
    unfit: dict[str, str] = field(default_factory=dict)
    gone: dict[str, str] = field(default_factory=dict)

    def address_of(self, name: str) -> str | None:
        return next((address for address, known in self.fit.items() if known == name), None)

    def joined(self, address: str, name: str, why: str) -> None:
        """A worker seen for the first time (or back under a new address): fit when ``why`` is ""."""
        self.gone.pop(name, None)
        if why:
            self.unfit[name] = why
        else:
            self.unfit.pop(name, None)
            self.fit[address] = name

    def lost(self, present: set[str]) -> list[str]:
        """Fit workers no longer in ``present`` (their addresses) become gone; returns their addresses."""
        left = [address for address in self.fit if address not in present]
        for address in left:
            self.gone[self.fit.pop(address)] = "left the cluster during the run (killed, or its host stopped)"
        return left

    def unfitted(self, name: str, why: str) -> str | None:
        """``name`` takes no more units; its address if it was fit."""
        address = self.address_of(name)
        if address is not None:
            del self.fit[address]
        self.unfit[name] = why
        return address

    def every_reason(self) -> dict[str, str]:
        """Every worker that takes no units, with why: the unfit and the gone."""
        return {**self.gone, **self.unfit}
