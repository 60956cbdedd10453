"""The results store (pystats_harness/results): runs named by their content, listed, shown, a metric over
every stored run, merging another store (twice changes nothing; either way round the same runs), a file
that is no store refused, and a store of an earlier schema version opened with its data intact."""

from __future__ import annotations

import multiprocessing
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pystats_harness.errors import ConfigError
from pystats_harness.results import Measurement, RunRecord, Store, Task, UnitRecord, schema
from pystats_harness.results import metrics as derived
from pystats_harness.results.errors import NotAStore, RunNotFound, UnknownMetric

HIT, MISS = "opcode.LOAD_ATTR.specialization.hit", "opcode.LOAD_ATTR.specialization.miss"
RATIO = "opcode.LOAD_ATTR.specialization.hit_ratio"


def collect_run(sha: str = "a" * 40, date: str = "2025-06-11T12:00:00+00:00", hit: float = 3.0) -> RunRecord:
    return RunRecord(
        Task.COLLECT,
        "v3.13.5",
        sha,
        date,
        "default",
        ("0001-fix",),
        (
            UnitRecord("richards", "trusted", "", 100, {HIT: hit, MISS: 1.0, "opcode.LOAD_ATTR.execution_count": 9}),
            UnitRecord("nbody", "untrusted", "leakage: 3 counters differ", 50, {HIT: 8.0}),
            UnitRecord("go", "failed", "ModuleNotFoundError", None, {}),
        ),
        recorded_at="2026-12-04T10:00:00+00:00",
        host="here",
        extra={"out": "/tmp/x"},
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "results" / "results.sqlite"


def test_a_run_comes_back_as_recorded_and_is_named_by_its_content(store_path: Path) -> None:
    run = collect_run()
    with Store.open(store_path) as store:
        run_id = store.record(run)
        assert store.get(run_id[:6]) == run
        # when, where, under which label, what extra says, the units' order: not the content
        again = replace(run, recorded_at="2027-01-01T00:00:00+00:00", host="there", revision="3.13", extra={})
        assert store.record(replace(again, units=run.units[::-1])) == run_id
        assert store.counts()["runs"] == 1 and store.counts()["units"] == 3
        # a different value is a different run
        assert store.record(collect_run(hit=3.5)) != run_id
        assert store.counts()["runs"] == 2
        with pytest.raises(ValueError, match="distinct names"):
            store.record(replace(run, units=run.units + run.units[:1]))


def test_runs_lists_each_run_with_its_verdict_counts(store_path: Path) -> None:
    validate = RunRecord(
        Task.VALIDATE, "v3.11.2", "b" * 40, "2023-02-08", "default", (), (UnitRecord("nbody", "pass"),)
    )
    with Store.open(store_path) as store:
        ids = [store.record(collect_run()), store.record(validate)]
        listed = store.runs()
        assert [r.run_id for r in listed] == ids
        assert listed[0].units == 3 and listed[0].verdicts == {"failed": 1, "trusted": 1, "untrusted": 1}
        assert [r.run_id for r in store.runs(Task.VALIDATE)] == ids[1:]
        assert store.runs(Task.BISECT) == []


def test_an_unknown_or_ambiguous_run_id_is_refused(store_path: Path) -> None:
    with Store.open(store_path) as store:
        ids = [store.record(collect_run(sha=f"{i:040x}")) for i in range(17)]  # two share a first digit
        first = [i[0] for i in ids]
        shared = next(c for c in first if first.count(c) > 1)
        with pytest.raises(RunNotFound) as ambiguous:
            store.get(shared)
        assert len(ambiguous.value.matches) == first.count(shared)
        for bad in ("", "zz", "0" * 64 if "0" * 64 not in ids else "f" * 64):
            with pytest.raises(RunNotFound):
                store.get(bad)


def test_a_metric_over_every_stored_run_derived_when_asked(store_path: Path) -> None:
    with Store.open(store_path) as store:
        late = store.record(collect_run("c" * 40, "2025-07-01T00:00:00+00:00", hit=1.0))
        early = store.record(collect_run("d" * 40, "2025-01-01T00:00:00+00:00", hit=3.0))
        points = store.series(RATIO, unit="richards")
        assert [(p.run_id, p.sha[:1], p.verdict, p.value) for p in points] == [
            (early, "d", "trusted", 0.75),
            (late, "c", "trusted", 0.5),
        ]
        every = {(p.run_id, p.unit): p.value for p in store.series(RATIO)}
        assert every[(early, "nbody")] == 1.0  # the miss counter left out of its stats: 0
        assert every[(early, "go")] is None  # measured nothing
        counts = {(p.run_id, p.unit): p.value for p in store.series(HIT)}
        assert counts[(late, "richards")] == 1.0 and counts[(late, "go")] is None
        with pytest.raises(UnknownMetric) as unknown:
            store.series("opcode.LOAD_ATTR.specialization.hit_ration")
        assert RATIO in unknown.value.close
        with pytest.raises(ConfigError, match="richards"):
            store.series(RATIO, unit="richard")


def test_derived_metrics_are_one_function() -> None:
    assert derived.inputs(RATIO) == (HIT, MISS)
    assert derived.inputs("family.CALL.specialization.deopt_ratio")[-1] == "family.CALL.specialization.deopt"
    assert derived.value("x.miss_ratio", {"x.hit": 1, "x.miss": 3}) == 0.75
    assert derived.value("x.hit_ratio", {"y": 1}) is None  # nothing hit or missed: no ratio
    assert derived.value("a.b", {}, measured=False) is None and derived.value("a.b", {"c": 1}) == 0.0


def _runs() -> st.SearchStrategy[list[RunRecord]]:
    unit = st.builds(
        UnitRecord,
        st.sampled_from(["nbody", "richards", "go"]),
        st.sampled_from(["trusted", "untrusted", "failed"]),
        st.just(""),
        st.one_of(st.none(), st.integers(1, 100)),
        st.dictionaries(st.sampled_from([HIT, MISS, "gc.0.collections"]), st.floats(0, 1e9), max_size=3),
    )
    units = st.lists(unit, max_size=3, unique_by=lambda u: u.name).map(tuple)
    run = st.builds(
        RunRecord,
        st.sampled_from(list(Task)),
        st.just("rev"),
        st.sampled_from(["a" * 40, "b" * 40]),
        st.just("2025-01-01"),
        st.sampled_from(["default", "jit"]),
        st.just(()),
        units,
    )
    return st.lists(run, max_size=6)


def _contents(path: Path) -> tuple[dict[str, int], dict[str, RunRecord]]:
    with Store.open(path) as store:
        return store.counts(), {r.run_id: replace(store.get(r.run_id), recorded_at="", host="") for r in store.runs()}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=_runs(), b=_runs())
def test_merging_twice_changes_nothing_and_either_way_round_gives_the_same_runs(
    tmp_path_factory: pytest.TempPathFactory, a: list[RunRecord], b: list[RunRecord]
) -> None:
    root = tmp_path_factory.mktemp("merge")
    paths = {name: root / f"{name}.sqlite" for name in ("a", "b", "a2")}
    for name, runs in (("a", a), ("b", b), ("a2", a)):
        with Store.open(paths[name]) as store:
            for run in runs:
                store.record(run)
    with Store.open(paths["b"]) as store:
        first = store.merge(paths["a"])
        after_once = store.counts()
        second = store.merge(paths["a"])
        assert store.counts() == after_once
    assert second.added == 0 and second.already_there == first.added + first.already_there
    with Store.open(paths["a2"]) as store:
        store.merge(paths["b"])
    assert _contents(paths["a2"]) == _contents(paths["b"])
    assert set(_contents(paths["b"])[1]) == {r.run_id for r in a + b}


def test_a_file_that_is_no_store_is_refused_and_left_alone(tmp_path: Path, store_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some text that is long enough to have a header\n" * 3)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    newer = tmp_path / "newer.sqlite"
    with Store.open(newer):
        pass
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    db.close()
    before = {p: p.read_bytes() for p in (text, other)}
    for path, why in ((text, "not a database"), (other, "another application"), (newer, "newer")):
        with pytest.raises(NotAStore, match=why), Store.open(path):
            pass
        with Store.open(store_path) as store, pytest.raises(NotAStore, match=why):
            store.merge(path)
    with Store.open(store_path) as store, pytest.raises(NotAStore, match="no such file"):
        store.merge(tmp_path / "absent.sqlite")
    assert {p: p.read_bytes() for p in (text, other)} == before


#: A version-1 store as version 1 of the code wrote it (written out here, not with the current code).
V1_STORE = """
PRAGMA application_id = 1887007604;
CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, task TEXT NOT NULL,
    revision TEXT NOT NULL, sha TEXT NOT NULL, commit_date TEXT NOT NULL, config TEXT NOT NULL,
    patches TEXT NOT NULL, parents TEXT NOT NULL, recorded_at TEXT NOT NULL, host TEXT NOT NULL,
    extra TEXT NOT NULL);
CREATE INDEX runs_by_sha ON runs (sha);
CREATE TABLE units (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL, verdict TEXT NOT NULL, reason TEXT NOT NULL, loops INTEGER, UNIQUE (run, name));
CREATE TABLE counters (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE unit_values (unit INTEGER NOT NULL REFERENCES units (id) ON DELETE CASCADE,
    counter INTEGER NOT NULL REFERENCES counters (id), value REAL NOT NULL, PRIMARY KEY (unit, counter))
    WITHOUT ROWID;
CREATE INDEX unit_values_by_counter ON unit_values (counter, unit);
INSERT INTO runs VALUES (1, '{run_id}', 'collect', 'v3.13.5', '{sha}', '2025-06-11', 'default', '["0001-fix"]',
    '[]', '2026-12-01T09:00:00+00:00', 'old-host', '{{"out": "/old"}}');
INSERT INTO units VALUES (1, 1, 'richards', 'trusted', '', 100);
INSERT INTO counters VALUES (1, '{hit}'), (2, '{miss}');
INSERT INTO unit_values VALUES (1, 1, 3.0), (1, 2, 1.0);
PRAGMA user_version = 1;
"""


def test_a_version_1_store_opens_with_its_data_intact(tmp_path: Path) -> None:
    expected = RunRecord(
        Task.COLLECT,
        "v3.13.5",
        "e" * 40,
        "2025-06-11",
        "default",
        ("0001-fix",),
        (UnitRecord("richards", "trusted", "", 100, {HIT: 3.0, MISS: 1.0}),),
        recorded_at="2026-12-01T09:00:00+00:00",
        host="old-host",
        extra={"out": "/old"},
    )
    path, untouched = tmp_path / "v1.sqlite", tmp_path / "v1-merged.sqlite"
    for each in (path, untouched):
        db = sqlite3.connect(each)
        db.executescript(V1_STORE.format(run_id=expected.run_id, sha=expected.sha, hit=HIT, miss=MISS))
        db.close()
    before = untouched.read_bytes()
    with Store.open(path) as store:
        assert schema.version_of(store.db) == schema.VERSION
        assert store.get(expected.run_id[:8]) == expected
        assert [p.value for p in store.series(RATIO)] == [0.75]
        assert store.record(expected) == expected.run_id and store.counts()["runs"] == 1
        assert store.counts()["measurements"] == 0  # version 2's table, added by the migration
    with Store.open(tmp_path / "new.sqlite") as store:
        assert store.merge(untouched).added == 1  # an older store merges in, migrated in a copy ...
        assert store.get(expected.run_id) == expected
    assert untouched.read_bytes() == before  # ... the file itself only read


def test_merging_measurements_keeps_ours_unless_ours_failed(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours.sqlite", tmp_path / "theirs.sqlite"
    with Store.open(ours) as store:
        store.keep(Measurement("s1", "k", "w", None, "run failed", "timed out"))
        store.keep(Measurement("s2", "k", "w", {"a": 1.0}))
    with Store.open(theirs) as store:
        store.keep(Measurement("s1", "k", "w", {"a": 5.0}))
        store.keep(Measurement("s2", "k", "w", {"a": 2.0}))
        store.keep(Measurement("s3", "k", "w", None, "build failed", "make: *** Error 2"))
    with Store.open(ours) as store:
        assert store.merge(theirs).measurements_added == 2
        assert store.merge(theirs).measurements_added == 0
        found = {sha: store.measurement(sha, "k", "w") for sha in ("s1", "s2", "s3")}
    assert {sha: (m.counters, m.failure) for sha, m in found.items() if m} == {
        "s1": ({"a": 5.0}, None),
        "s2": ({"a": 1.0}, None),
        "s3": (None, "build failed"),
    }


def _write_many(path: Path, start: int) -> None:
    with Store.open(path) as store:
        for i in range(start, start + 15):
            store.record(collect_run(sha=f"{i:040x}"))


def _open(path: Path) -> None:
    with Store.open(path) as store:
        store.runs()


def test_processes_opening_a_new_store_together_all_open_it(tmp_path: Path) -> None:
    """Six processes, ten times, each opening a store that does not exist yet: none may read another's
    half-made store as a foreign database, or give up on the write-ahead log while another sets it."""
    context = multiprocessing.get_context("fork")
    for trial in range(10):
        path = tmp_path / str(trial) / "results.sqlite"
        workers = [context.Process(target=_open, args=(path,)) for _ in range(6)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        assert [w.exitcode for w in workers] == [0] * 6, trial


def test_processes_write_one_store_at_once(store_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(store_path, s)) for s in (0, 15)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    with Store.open(store_path) as store:
        assert len(store.runs()) == 30 and store.counts()["units"] == 90
