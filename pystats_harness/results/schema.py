"""The results store's schema, versioned: ``PRAGMA user_version`` is the version a store is at, and
:data:`MIGRATIONS` ``[n]`` takes a store from version ``n`` to ``n + 1`` (``MIGRATIONS[0]`` creates it).
Opening a store applies the missing ones in order, in one transaction; a store newer than this code is
refused. ``PRAGMA application_id`` (:data:`APPLICATION_ID`) marks a file as a results store.

docs/results.md describes every table; a change to the schema is one more entry at the end of
:data:`MIGRATIONS` (never an edit of an earlier one) and a paragraph there.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

#: "pyst" in ASCII: what ``PRAGMA application_id`` holds in a results store.
APPLICATION_ID = 0x70797374

#: Version 1: runs, their units, counter names, and each unit's per-loop counter values.
_V1 = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    task TEXT NOT NULL,
    revision TEXT NOT NULL,
    sha TEXT NOT NULL,
    commit_date TEXT NOT NULL,
    config TEXT NOT NULL,
    patches TEXT NOT NULL,
    parents TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    host TEXT NOT NULL,
    extra TEXT NOT NULL
);
CREATE INDEX runs_by_sha ON runs (sha);
CREATE TABLE units (
    id INTEGER PRIMARY KEY,
    run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    loops INTEGER,
    UNIQUE (run, name)
);
CREATE TABLE counters (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE unit_values (
    unit INTEGER NOT NULL REFERENCES units (id) ON DELETE CASCADE,
    counter INTEGER NOT NULL REFERENCES counters (id),
    value REAL NOT NULL,
    PRIMARY KEY (unit, counter)
) WITHOUT ROWID;
CREATE INDEX unit_values_by_counter ON unit_values (counter, unit);
"""


#: Version 2: measurements that bisect and history reuse (they replace measure/resultcache.py's JSON files):
#: one workload at one commit with one build, keyed by hash(sha, build key, workload); every counter per
#: loop as a JSON object, or the failure and why.
_V2 = """
CREATE TABLE measurements (
    key TEXT PRIMARY KEY,
    sha TEXT NOT NULL,
    build_key TEXT NOT NULL,
    workload TEXT NOT NULL,
    counters TEXT,
    failure TEXT,
    detail TEXT NOT NULL,
    measured_at TEXT NOT NULL,
    extra TEXT NOT NULL,
    CHECK ((counters IS NULL) != (failure IS NULL))
);
CREATE INDEX measurements_by_sha ON measurements (sha);
"""


def _script(sql: str) -> Callable[[sqlite3.Connection], None]:
    def apply(db: sqlite3.Connection) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                db.execute(statement)

    return apply


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_script(_V1), _script(_V2))
VERSION = len(MIGRATIONS)


def version_of(db: sqlite3.Connection, schema: str = "main") -> int:
    return int(db.execute(f"PRAGMA {schema}.user_version").fetchone()[0])


def application_id(db: sqlite3.Connection, schema: str = "main") -> int:
    return int(db.execute(f"PRAGMA {schema}.application_id").fetchone()[0])


def has_tables(db: sqlite3.Connection, schema: str = "main") -> bool:
    return db.execute(f"SELECT count(*) FROM {schema}.sqlite_master").fetchone()[0] > 0


def migrate(db: sqlite3.Connection) -> int:
    """Bring the store open in ``db`` (in a transaction the caller began) to :data:`VERSION`; the version it
    was at."""
    found = version_of(db)
    for step in MIGRATIONS[found:]:
        step(db)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {VERSION}")
    return found
