"""Opening a results store's SQLite file: checked to be a store (``PRAGMA application_id``) of a schema
version this code knows, migrated when older, in write-ahead-log mode; and one write transaction."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pystats_harness.errors import PathNotWritable
from pystats_harness.results import schema
from pystats_harness.results.errors import NotAStore

#: How long a write waits for another process's write transaction to end.
BUSY_SECONDS = 120.0


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit); the file is checked to be a store of a
    version this code knows (older ones are migrated, unless ``read_only``)."""
    try:
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        uri = f"{path.resolve().as_uri()}{'?mode=ro' if read_only else ''}"
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    except OSError as exc:
        raise PathNotWritable(path.parent, exc.strerror or str(exc)) from exc
    except sqlite3.Error as exc:
        raise NotAStore(path, str(exc)) from exc
    try:
        try:
            _check(db, path)
        except sqlite3.DatabaseError as exc:  # "file is not a database"
            raise NotAStore(path, str(exc)) from exc
        if not read_only:
            try:
                _prepare(db)
            except sqlite3.OperationalError as exc:  # a read-only file, a lock held past BUSY_SECONDS
                raise PathNotWritable(path, str(exc)) from exc
    except BaseException:
        db.close()
        raise
    return db


def _prepare(db: sqlite3.Connection) -> None:
    _write_ahead_log(db)
    db.execute("PRAGMA foreign_keys = ON")
    if schema.version_of(db) < schema.VERSION:
        with transaction(db):
            schema.migrate(db)


def _write_ahead_log(db: sqlite3.Connection) -> None:
    """WAL mode (kept in the file once set). Setting it needs the file to itself, and SQLite answers busy
    at once rather than waiting, so processes opening a new store together retry for BUSY_SECONDS."""
    deadline = time.monotonic() + BUSY_SECONDS
    while db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            db.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def connect_memory() -> sqlite3.Connection:
    """An empty store in memory (a reader's view of a store not made yet)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    with transaction(db):
        schema.migrate(db)
    return db


def _check(db: sqlite3.Connection, path: Path, name: str = "main") -> None:
    """What the file is, read in one read transaction: another process creating the store commits its
    tables and its application id together, and three reads in autocommit could see one without the other."""
    db.execute("BEGIN")
    try:
        found, version = schema.application_id(db, name), schema.version_of(db, name)
        tables = schema.has_tables(db, name)
    finally:
        db.execute("COMMIT")
    if found != schema.APPLICATION_ID and (found != 0 or tables):
        raise NotAStore(path, f"an SQLite database of another application (application_id {found:#x})")
    if version > schema.VERSION:
        raise NotAStore(path, f"schema version {version}, newer than this harness's {schema.VERSION}; update it")


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``: no deadlock between two writers)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
