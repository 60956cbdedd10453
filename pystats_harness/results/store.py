"""The results store: every run of validate, collect, diff, history and bisect, in one SQLite file under the
cache directory (``CachePaths.results_db``), read by ``invoke results`` and whatever publishes them.

    with Store.open(path) as store:
        run_id = store.record(run)              # a RunRecord; its id is the sha256 of its content
        store.runs(Task.COLLECT)                # RunSummary per run, oldest first
        store.get("3fa2")                       # the RunRecord whose id starts so (RunNotFound otherwise)
        store.series("opcode.LOAD_ATTR.specialization.hit_ratio", unit="richards")   # Point per unit
        store.merge(other_path)                 # MergeResult(added, already_there, measurements_added)
        store.measurement(sha, build_key, workload)   # a Measurement bisect and history reuse, or None
        store.keep(measurement)

Why SQLite (the standard library's ``sqlite3``): no dependency; several invocations share one cache
directory, and SQLite's file locks with write-ahead logging let concurrent processes write one file safely
(each write is one short transaction, ``BEGIN IMMEDIATE``, waiting up to
:data:`~pystats_harness.results.db.BUSY_SECONDS` for another);
merging another machine's store is ``ATTACH`` + ``INSERT`` of the runs this one lacks. The schema and its
versions are in :mod:`pystats_harness.results.schema` and docs/results.md.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import socket
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from pystats_harness.errors import ConfigError
from pystats_harness.results import metrics
from pystats_harness.results.db import connect, connect_memory, now, transaction
from pystats_harness.results.errors import NotAStore, RunNotFound, UnknownMetric
from pystats_harness.results.merge import merge_into
from pystats_harness.results.records import (
    Measurement,
    MergeResult,
    Point,
    RunRecord,
    RunSummary,
    Task,
    UnitRecord,
    finite,
)

_HEX = frozenset("0123456789abcdef")


def measurement_key(sha: str, build_key: str, workload: str) -> str:
    """What names a measurement: the commit, how it was built (before building: the build key), the workload."""
    payload = json.dumps({"sha": sha, "build": build_key, "workload": workload}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


class Store:
    """One open results store (see the module's docstring); use :meth:`open`."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db, self.path = db, path

    @classmethod
    @contextmanager
    def open(cls, path: Path, *, create: bool = True) -> Iterator[Store]:
        """The store at ``path``, created (with its folder) when there is none, or with ``create=False`` an
        empty one in memory (nothing is written: what a reader wants); NotAStore for another file."""
        path = Path(path)
        db = connect(path) if create or path.exists() else connect_memory()
        try:
            yield cls(db, path)
        finally:
            db.close()

    @staticmethod
    def check(path: Path) -> None:
        """Refuse ``path`` (NotAStore) unless it is a store this code can read; nothing is written."""
        if not Path(path).is_file():
            raise NotAStore(Path(path), "no such file")
        connect(Path(path), read_only=True).close()

    # --- writing -------------------------------------------------------------------------------------

    def record(self, run: RunRecord) -> str:
        """Store ``run`` (once: a run with the same content is already there) and return its id."""
        names = [unit.name for unit in run.units]
        if len(set(names)) != len(names):
            raise ValueError(f"a run's units need distinct names: {sorted({n for n in names if names.count(n) > 1})}")
        run_id = run.run_id
        with transaction(self.db) as db:
            if db.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None:
                self._insert(db, run_id, run)
        return run_id

    def _insert(self, db: sqlite3.Connection, run_id: str, run: RunRecord) -> None:
        row = db.execute(
            "INSERT INTO runs (run_id, task, revision, sha, commit_date, config, patches, parents, recorded_at,"
            " host, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                Task(run.task).value,
                run.revision,
                run.sha,
                run.commit_date,
                run.config,
                json.dumps(list(run.patches)),
                json.dumps(list(run.parents)),
                run.recorded_at or now(),
                run.host or socket.gethostname(),
                json.dumps(dict(run.extra), sort_keys=True, default=str),
            ),
        )
        names = sorted({name for unit in run.units for name in unit.values})
        db.executemany("INSERT OR IGNORE INTO counters (name) VALUES (?)", [(n,) for n in names])
        ids = dict(db.execute("SELECT name, id FROM counters").fetchall())
        for unit in run.units:
            unit_id = db.execute(
                "INSERT INTO units (run, name, verdict, reason, loops) VALUES (?, ?, ?, ?, ?)",
                (row.lastrowid, unit.name, unit.verdict, unit.reason, unit.loops),
            ).lastrowid
            db.executemany(
                "INSERT INTO unit_values (unit, counter, value) VALUES (?, ?, ?)",
                [(unit_id, ids[name], value) for name, value in finite(unit.values).items()],
            )

    def merge(self, other: Path) -> MergeResult:
        """Add the runs of the store at ``other`` that this one lacks (and its measurements); ``other`` is
        only read. Runs are named by their content, so merging the same store again adds nothing."""
        return merge_into(self.db, Path(other))

    # --- measurements reused by bisect and history ----------------------------------------------------

    def measurement(
        self, sha: str, build_key: str, workload: str, *, retry: Collection[str] = ()
    ) -> Measurement | None:
        """The measurement of ``workload`` at ``sha`` with the build ``build_key``; None when there is none or
        its failure is one of ``retry`` (measured again)."""
        row = self.db.execute(
            "SELECT counters, failure, detail, measured_at, extra FROM measurements WHERE key = ?",
            (measurement_key(sha, build_key, workload),),
        ).fetchone()
        if row is None or (row[1] is not None and row[1] in retry):
            return None
        counters = None if row[0] is None else json.loads(row[0])
        return Measurement(sha, build_key, workload, counters, row[1], row[2], row[3], json.loads(row[4]))

    def keep(self, m: Measurement) -> Measurement:
        """Store ``m`` (its counters, or its failure), replacing what was stored for the same key."""
        if (m.counters is None) == (m.failure is None):
            raise ValueError("a measurement has either counters or a failure")
        kept = replace(m, measured_at=m.measured_at or now())
        counters = None if m.counters is None else json.dumps(finite(m.counters))
        with transaction(self.db) as db:
            db.execute(
                "INSERT OR REPLACE INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *(measurement_key(m.sha, m.build_key, m.workload), m.sha, m.build_key, m.workload),
                    *(counters, m.failure, m.detail, kept.measured_at),
                    json.dumps(dict(m.extra), sort_keys=True, default=str),
                ),
            )
        return kept

    def forget_measurements(self) -> int:
        """Remove every stored measurement (the next bisect or history measures again); how many there were."""
        with transaction(self.db) as db:
            return db.execute("DELETE FROM measurements").rowcount

    # --- reading -------------------------------------------------------------------------------------

    def runs(self, task: Task | None = None) -> list[RunSummary]:
        """Every stored run (of ``task``), oldest recorded first."""
        where, args = ("WHERE r.task = ?", (Task(task).value,)) if task else ("", ())
        rows = self.db.execute(
            "SELECT r.id, r.run_id, r.task, r.revision, r.sha, r.commit_date, r.config, r.recorded_at, r.host,"
            f" count(u.id) FROM runs r LEFT JOIN units u ON u.run = r.id {where}"
            " GROUP BY r.id ORDER BY r.recorded_at, r.id",
            args,
        ).fetchall()
        verdicts: dict[int, dict[str, int]] = {}
        for run, verdict, n in self.db.execute(
            "SELECT run, verdict, count(*) FROM units GROUP BY run, verdict ORDER BY verdict"
        ):
            verdicts.setdefault(run, {})[verdict] = n
        return [
            RunSummary(r[1], Task(r[2]), r[3], r[4], r[5], r[6], r[7], r[8], r[9], verdicts.get(r[0], {})) for r in rows
        ]

    def resolve(self, prefix: str) -> str:
        """The one stored run id starting with ``prefix`` (RunNotFound when none or several)."""
        wanted = prefix.strip().lower()
        if not wanted or not set(wanted) <= _HEX:
            raise RunNotFound(prefix)
        found = [
            r[0]
            for r in self.db.execute(
                "SELECT run_id FROM runs WHERE run_id >= ? AND run_id < ? ORDER BY run_id", (wanted, wanted + "g")
            )
        ]
        if len(found) != 1:
            raise RunNotFound(prefix, found)
        return found[0]

    def get(self, prefix: str) -> RunRecord:
        """The stored run whose id starts with ``prefix``, with its units and their values."""
        run_id = self.resolve(prefix)
        r = self.db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        values: dict[int, dict[str, float]] = {}
        for unit, name, value in self.db.execute(
            "SELECT v.unit, c.name, v.value FROM unit_values v JOIN counters c ON c.id = v.counter"
            " JOIN units u ON u.id = v.unit WHERE u.run = ?",
            (r[0],),
        ):
            values.setdefault(unit, {})[name] = value
        units = tuple(
            UnitRecord(name, verdict, reason, loops, dict(sorted(values.get(uid, {}).items())))
            for uid, name, verdict, reason, loops in self.db.execute(
                "SELECT id, name, verdict, reason, loops FROM units WHERE run = ? ORDER BY id", (r[0],)
            )
        )
        patches, parents, extra = json.loads(r[7]), json.loads(r[8]), json.loads(r[11])
        return RunRecord(Task(r[2]), r[3], r[4], r[5], r[6], tuple(patches), units, tuple(parents), r[9], r[10], extra)

    def counter_names(self) -> list[str]:
        """Every counter name the store has seen, sorted."""
        return [r[0] for r in self.db.execute("SELECT name FROM counters ORDER BY name")]

    def series(self, metric: str, unit: str | None = None) -> list[Point]:
        """``metric`` (any form of :mod:`~pystats_harness.results.metrics`) in every stored unit (named
        ``unit``) but a diff's (its parents, two collects, hold the counters), by commit date; UnknownMetric
        when no stored unit has its counters."""
        names = self.counter_names()
        wanted = set(metrics.inputs(metric, names))
        known = [(cid, name) for cid, name in self.db.execute("SELECT id, name FROM counters") if name in wanted]
        if not known:
            raise UnknownMetric(metric, difflib.get_close_matches(metric, metrics.suggestions(names), 3))
        if unit is not None and self.db.execute("SELECT 1 FROM units WHERE name = ?", (unit,)).fetchone() is None:
            units = [r[0] for r in self.db.execute("SELECT DISTINCT name FROM units")]
            close = difflib.get_close_matches(unit, units, 3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ConfigError(f"no stored run has a benchmark or workload named {unit!r}{hint}")
        rows = self.db.execute(
            "SELECT u.id, r.run_id, r.task, r.revision, r.sha, r.commit_date, r.config, u.name, u.verdict,"
            " EXISTS (SELECT 1 FROM unit_values m WHERE m.unit = u.id) FROM units u JOIN runs r ON r.id = u.run"
            " WHERE (? IS NULL OR u.name = ?) AND r.task != ? ORDER BY r.commit_date, r.recorded_at, r.id, u.name",
            (unit, unit, Task.DIFF.value),  # a diff's units measure nothing: its parents' do
        ).fetchall()
        found: dict[int, dict[str, float]] = {}
        counter_ids = ",".join(str(cid) for cid, _ in known)
        for uid, name, value in self.db.execute(
            "SELECT v.unit, c.name, v.value FROM unit_values v JOIN counters c ON c.id = v.counter"
            f" WHERE v.counter IN ({counter_ids})"
        ):
            found.setdefault(uid, {})[name] = value
        return [
            Point(
                *(r[1], Task(r[2]), r[3], r[4], r[5], r[6], r[7], r[8]),
                metrics.value(metric, found.get(r[0], {}), measured=bool(r[9])),
            )
            for r in rows
        ]

    def counts(self) -> dict[str, Any]:
        """Rows per table (what a merge test compares)."""
        tables = [r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in sorted(tables)}
