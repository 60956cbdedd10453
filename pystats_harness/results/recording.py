"""Recording a finished run into this machine's results store (``CachePaths.results_db``): called once by
each of validate, collect, history and bisect after its own outputs are written. A store that cannot be
written (a full disk, a damaged file, a lock held too long) costs the record, never the run: one warning
line, and the run's outputs and exit code stay as they were."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.results.records import RunRecord
from pystats_harness.results.store import Store


def record_runs(ctx: Context, runs: Sequence[RunRecord]) -> list[str]:
    """Record ``runs`` (one transaction each); their ids, or [] when the store could not take them."""
    path = ctx.settings.paths.results_db
    try:
        with Store.open(path) as store:
            return [store.record(run) for run in runs]
    except (HarnessError, sqlite3.Error, OSError, ValueError) as exc:
        what = f"{len(runs)} run(s)" if len(runs) != 1 else "the run"
        ctx.reporter.warn(f"results store: {what} not recorded in {path} ({exc}); the outputs above are complete")
        return []
