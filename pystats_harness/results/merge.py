"""Merging another results store into this one (``invoke results --merge PATH``): ``ATTACH`` the other file
read-only and, in one transaction, insert the runs this store lacks with their units and values (counter
names are matched by name, rows get this store's ids), and the measurements it lacks. A run's id is the hash of its content, so a run both
stores hold is skipped, and merging the same store twice adds nothing. A store of an older schema is copied
to a temporary file and migrated there; the other file is never written.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from pystats_harness.results import schema
from pystats_harness.results.db import connect, transaction
from pystats_harness.results.errors import NotAStore
from pystats_harness.results.records import MergeResult

_NEW = "other.runs o WHERE o.run_id IN (SELECT run_id FROM temp.merging)"
_STEPS = (
    "INSERT OR IGNORE INTO main.counters (name) SELECT name FROM other.counters",
    "INSERT INTO main.runs (run_id, task, revision, sha, commit_date, config, patches, parents, recorded_at,"
    " host, extra) SELECT o.run_id, o.task, o.revision, o.sha, o.commit_date, o.config, o.patches, o.parents,"
    f" o.recorded_at, o.host, o.extra FROM {_NEW} ORDER BY o.id",
    "INSERT INTO main.units (run, name, verdict, reason, loops)"
    " SELECT r.id, u.name, u.verdict, u.reason, u.loops FROM other.units u"
    " JOIN other.runs o ON o.id = u.run JOIN main.runs r ON r.run_id = o.run_id"
    " WHERE o.run_id IN (SELECT run_id FROM temp.merging) ORDER BY u.id",
    "INSERT INTO main.unit_values (unit, counter, value)"
    " SELECT mu.id, mc.id, v.value FROM other.unit_values v"
    " JOIN other.units u ON u.id = v.unit JOIN other.runs o ON o.id = u.run"
    " JOIN main.runs r ON r.run_id = o.run_id JOIN main.units mu ON mu.run = r.id AND mu.name = u.name"
    " JOIN other.counters oc ON oc.id = v.counter JOIN main.counters mc ON mc.name = oc.name"
    " WHERE o.run_id IN (SELECT run_id FROM temp.merging)",
)


#: Measurements: this store's own are kept, but a failure here gives way to counters there (a run failure
#: retried on the other machine); then those this store lacks.
_MEASUREMENTS = (
    "INSERT OR REPLACE INTO main.measurements SELECT o.* FROM other.measurements o"
    " JOIN main.measurements m ON m.key = o.key WHERE m.counters IS NULL AND o.counters IS NOT NULL",
    "INSERT OR IGNORE INTO main.measurements SELECT * FROM other.measurements",
)


def merge_into(db: sqlite3.Connection, other: Path) -> MergeResult:
    """Merge the store at ``other`` into the open store ``db`` (see the module's docstring)."""
    if not other.is_file():
        raise NotAStore(other, "no such file")
    source = connect(other, read_only=True)  # checked: a store of a version this code knows
    try:
        version = schema.version_of(source)
        if version < schema.VERSION:
            with tempfile.TemporaryDirectory(prefix="pystats-merge-") as scratch:
                copy = Path(scratch) / "store.sqlite"
                target = sqlite3.connect(copy)
                try:
                    source.backup(target)
                finally:
                    target.close()
                return _merge_file(db, _migrated(copy))
        return _merge_file(db, other)
    finally:
        source.close()


def _migrated(copy: Path) -> Path:
    connect(copy).close()  # migrates the copy
    return copy


def _merge_file(db: sqlite3.Connection, other: Path) -> MergeResult:
    db.execute("ATTACH DATABASE ? AS other", (f"{other.resolve().as_uri()}?mode=ro",))
    try:
        with transaction(db):
            db.execute("DROP TABLE IF EXISTS temp.merging")
            db.execute(
                "CREATE TEMP TABLE merging AS SELECT run_id FROM other.runs"
                " WHERE run_id NOT IN (SELECT run_id FROM main.runs)"
            )
            added = db.execute("SELECT count(*) FROM temp.merging").fetchone()[0]
            total = db.execute("SELECT count(*) FROM other.runs").fetchone()[0]
            for step in _STEPS:
                db.execute(step)
            db.execute("DROP TABLE temp.merging")
            measurements = sum(db.execute(step).rowcount for step in _MEASUREMENTS)
    finally:
        db.execute("DETACH DATABASE other")
    return MergeResult(added, total - added, measurements)
