"""The metrics a user has asked for with ``invoke results --metric``, remembered beside the store
(``queried-metrics.json`` in its folder) so that ``invoke publish`` gives each a page of its own.

Only a metric the store could answer is remembered (the newest last, at most :data:`LIMIT`); a folder that
cannot be written is no error: remembering is a convenience, the answer was printed."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from pystats_harness.infra.fs import exclusively, write_json_atomic

FILE = "queried-metrics.json"
LIMIT = 50


def path_beside(results_db: Path) -> Path:
    return Path(results_db).with_name(FILE)


def queried(results_db: Path) -> tuple[str, ...]:
    """The remembered metrics, oldest first (none when there is no file or it is not a list of names)."""
    try:
        doc = json.loads(path_beside(results_db).read_text())
    except (OSError, ValueError):
        return ()
    return tuple(m for m in doc if isinstance(m, str) and m.strip()) if isinstance(doc, list) else ()


def remember(results_db: Path, metric: str) -> None:
    """Add ``metric`` (moved to the end when it is there), keeping the newest :data:`LIMIT`."""
    path = path_beside(results_db)
    with contextlib.suppress(OSError), exclusively(path.with_name(f".{FILE}.lock")):
        kept = [m for m in queried(results_db) if m != metric]
        write_json_atomic(path, [*kept, metric][-LIMIT:])
