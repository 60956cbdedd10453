"""The results store's errors: a file that is no store, a run id that names no run (or several), a metric
no stored unit has. Each is one line with what to try and its own exit code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pystats_harness.errors import HarnessError
from pystats_harness.exit_codes import ExitCode


class NotAStore(HarnessError):
    """A file given as a results store is none (not SQLite, another application's database) or was written
    by a newer harness (a schema version this code does not know)."""

    exit_code = ExitCode.NOT_A_STORE

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path} is not a results store this harness can read: {why}; nothing was changed")
        self.path, self.why = path, why


class RunNotFound(HarnessError):
    """No stored run has the id (or id prefix) asked for, or the prefix names more than one."""

    exit_code = ExitCode.RUN_NOT_FOUND

    def __init__(self, prefix: str, matches: Sequence[str] = ()) -> None:
        if matches:
            shown = ", ".join(m[:12] for m in matches[:5])
            message = f"run id {prefix!r} names {len(matches)} runs ({shown}); give more of the id"
        else:
            message = f"no stored run has an id starting with {prefix!r}; `invoke results` lists the runs"
        super().__init__(message)
        self.prefix, self.matches = prefix, tuple(matches)


class UnknownMetric(HarnessError):
    """No stored unit has the metric asked for (or the counters it is derived from)."""

    exit_code = ExitCode.UNKNOWN_METRIC

    def __init__(self, metric: str, close: Sequence[str] = ()) -> None:
        hint = (
            f"; did you mean {', '.join(close)}?"
            if close
            else "; `invoke results --run ID --json` shows a run's counters"
        )
        super().__init__(f"no stored run has the metric {metric!r}{hint}")
        self.metric, self.close = metric, tuple(close)
