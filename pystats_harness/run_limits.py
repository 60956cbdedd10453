"""A run's limits (the settings ``run_pids`` and ``run_memory``) and the error of a run that reached one."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import RunFailed
from pystats_harness.exit_codes import ExitCode


class Resource(enum.Enum):
    """What a run container is limited in (the settings ``run_pids`` and ``run_memory``)."""

    PROCESSES = "process"
    MEMORY = "memory"


@dataclass(frozen=True)
class Limit:
    """One limit of a run: what it limits, its value as set ("2g", "256") and the setting's name."""

    resource: Resource
    value: str
    setting: str

    @property
    def what_happened(self) -> str:
        if self.resource is Resource.MEMORY:
            return "the kernel OOM-killed it"
        return "it could not start another process or thread"


class LimitReached(RunFailed):
    """A run was stopped by its process or memory limit (a fork bomb may reach both: each process costs
    memory); carries the limits reached and the run's directory."""

    exit_code = ExitCode.LIMIT_REACHED

    def __init__(self, *, label: str, limits: Sequence[Limit], run_dir: Path) -> None:
        named = " and ".join(f"{limit.resource.value} limit ({limit.value})" for limit in limits)
        how = " and ".join(limit.what_happened for limit in limits)
        settings = " and ".join(f"pystats.{limit.setting}" for limit in limits)
        super().__init__(
            f"{named} reached by run '{label}': {how}; output kept in {run_dir}; "
            f"raise {settings} if the workload really needs more"
        )
        self.label = label
        self.limits = tuple(limits)
        self.run_dir = run_dir

    @property
    def resources(self) -> tuple[Resource, ...]:
        return tuple(limit.resource for limit in self.limits)
