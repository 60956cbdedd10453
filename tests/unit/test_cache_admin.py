"""Keeping the cache small and sound without an engine: the prune policy, sizes, content records,
and the locks that keep concurrent invocations from damaging each other."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from pystats_harness.builder import integrity, locks, prune
from pystats_harness.builder.cache import MARKER, CacheEntry, lookup
from pystats_harness.config import load_settings
from pystats_harness.errors import ConfigError

NOW = 1_800_000_000.0
DAY = 86400.0


def info(
    key: str, *, size: int = 100, used_days_ago: float = 0, state: prune.State = prune.State.OK
) -> prune.EntryInfo:
    stamp = NOW - used_days_ago * DAY
    return prune.EntryInfo(key, Path("/nowhere") / key, state, size, stamp, stamp, group="3.13-x")


ENTRIES = [
    info("a", used_days_ago=0),
    info("b", used_days_ago=1),
    info("c", used_days_ago=10),
    info("d", used_days_ago=30),
]


@pytest.mark.parametrize(
    "policy, removed",
    [
        (prune.Policy(keep=2), ["d", "c"]),
        (prune.Policy(keep=10), []),
        (prune.Policy(older_than_days=7), ["d", "c"]),
        (prune.Policy(max_size=250), ["d", "c"]),
        (prune.Policy(max_size=300), ["d"]),
        (prune.Policy(max_size=0), ["d", "c", "b", "a"]),
        (prune.Policy(keep=3, older_than_days=20), ["d"]),
    ],
    ids=["keep 2", "keep more than there are", "older than a week", "fit 250", "fit 300", "fit nothing", "both"],
)
def test_prune_policy_removes_least_recently_used_first(policy: prune.Policy, removed: list[str]) -> None:
    assert [e.key for e in prune.choose(ENTRIES, policy, NOW)] == removed


def test_invalid_and_half_entries_are_always_pruned() -> None:
    broken = [*ENTRIES, info("x", used_days_ago=0, state=prune.State.INVALID)]
    assert "x" in [e.key for e in prune.choose(broken, prune.Policy(keep=10), NOW)]


def test_prune_needs_a_policy() -> None:
    with pytest.raises(ConfigError, match="--keep N, --max-size SIZE or --older-than DAYS"):
        prune.Policy()


@pytest.mark.parametrize("policy", [{"keep": -1}, {"older_than_days": -5.0}, {"max_size": -1}])
def test_a_negative_prune_limit_is_refused_before_anything_is_chosen(policy: dict[str, float]) -> None:
    with pytest.raises(ConfigError, match="is negative; nothing was removed"):
        prune.Policy(**policy)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text, size",
    [
        ("123", 123),
        ("1k", 1024),
        ("500M", 500 << 20),
        ("20G", 20 << 30),
        ("1.5t", int(1.5 * (1 << 40))),
        ("2GiB", 2 << 30),
    ],
)
def test_sizes(text: str, size: int) -> None:
    assert prune.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "G", "3Q", "-1G", "lots"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a size"):
        prune.parse_size(text)


def test_cache_max_size_setting_is_checked() -> None:
    assert load_settings({"cache_max_size": "50G"}).cache_max_size == "50G"
    with pytest.raises(ConfigError, match="cache_max_size"):
        load_settings({"cache_max_size": "big"})


def make_entry(builds: Path, key: str) -> CacheEntry:
    path = builds / key
    (path / "install" / "bin").mkdir(parents=True)
    (path / "install" / "bin" / "python3.13").write_bytes(b"\x7fELF" + bytes(range(256)))
    os.symlink("python3.13", path / "install" / "bin" / "python3")
    (path / "manifest.json").write_text('{"revision": "v3.13.5", "sha": "abc", "patches": [], "python": {}}')
    integrity.record(path)
    (path / MARKER).write_text("complete\n")
    return CacheEntry(path)


def test_contents_find_flipped_deleted_and_added_files(tmp_path: Path) -> None:
    entry = make_entry(tmp_path, "k1")
    assert integrity.check(entry) == []
    binary = entry.path / "install" / "bin" / "python3.13"
    data = bytearray(binary.read_bytes())
    data[10] ^= 0x01
    binary.write_bytes(bytes(data))
    (entry.path / "manifest.json").unlink()
    (entry.path / "install" / "extra").write_text("x")
    assert [(p.path, p.what) for p in integrity.check(entry)] == [
        ("manifest.json", "missing"),
        ("install/extra", "unexpected"),
        ("install/bin/python3.13", "changed"),
    ]
    os.unlink(entry.path / "install" / "bin" / "python3")
    os.symlink("elsewhere", entry.path / "install" / "bin" / "python3")
    assert ("install/bin/python3", "changed") in [(p.path, p.what) for p in integrity.check(entry)]


def test_an_invalidated_entry_is_never_served_again(tmp_path: Path) -> None:
    settings = load_settings({"cache_dir": str(tmp_path)})
    entry = make_entry(settings.builds_dir, "k1")
    assert lookup(settings.builds_dir, "k1") == entry
    integrity.invalidate(entry, [integrity.Problem("install/bin/python3.13", "changed")])
    assert lookup(settings.builds_dir, "k1") is None
    assert "install/bin/python3.13: changed" in (entry.path / integrity.INVALID).read_text()
    assert [(e.key, e.state) for e in prune.inventory(settings)] == [("k1", prune.State.INVALID)]


def _hold_entry(
    builds: str, key: str, ready: multiprocessing.synchronize.Event, done: multiprocessing.synchronize.Event
) -> None:
    assert lookup(Path(builds), key) is not None
    ready.set()
    done.wait(30)


def test_an_entry_in_use_elsewhere_is_not_pruned(tmp_path: Path) -> None:
    settings = load_settings({"cache_dir": str(tmp_path)})
    for key in ("old", "new"):
        make_entry(settings.builds_dir, key)
    ctx = multiprocessing.get_context("fork")
    ready, done = ctx.Event(), ctx.Event()
    user = ctx.Process(target=_hold_entry, args=(str(settings.builds_dir), "old", ready, done))
    user.start()
    try:
        assert ready.wait(30)
        os.utime(settings.builds_dir / locks.LOCKS / "old.use", (1, 1))  # least recently used
        result = prune.prune(settings, prune.Policy(keep=0))
        assert [e.key for e in result.in_use] == ["old"] and [e.key for e in result.removed] == ["new"]
        assert (settings.builds_dir / "old" / MARKER).exists() and not (settings.builds_dir / "new").exists()
    finally:
        done.set()
        user.join(30)
    (settings.cache_dir / "sites" / "old" / "bm_nbody-x").mkdir(parents=True)  # collect's site of that build
    (settings.cache_dir / "sites" / "old" / "bm_nbody-x" / "pyperf.py").write_text("x" * 5000)
    again = prune.prune(settings, prune.Policy(keep=0))  # the other invocation has ended
    assert [e.key for e in again.removed] == ["old"] and list(settings.builds_dir.iterdir()) == [
        settings.builds_dir / ".locks"
    ]
    assert again.extra["sites"] >= 5000 and not (settings.cache_dir / "sites" / "old").exists()


def _build_slowly(builds: str, started: multiprocessing.synchronize.Event) -> None:
    with locks.building(Path(builds), "k", "build of v3.13.5 (abc)", lambda owner: None):
        started.set()
        time.sleep(1.0)


def test_a_second_build_of_the_same_key_waits_and_says_whose(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    started = ctx.Event()
    first = ctx.Process(target=_build_slowly, args=(str(tmp_path), started))
    first.start()
    assert started.wait(30)
    told: list[locks.Owner | None] = []
    t0 = time.monotonic()
    with locks.building(tmp_path, "k", "build of v3.13.5 (abc)", told.append):
        waited = time.monotonic() - t0
    first.join(30)
    assert len(told) == 1 and told[0] is not None and told[0].pid == first.pid
    assert told[0].what == "build of v3.13.5 (abc)" and f"pid {first.pid}" in told[0].describe()
    assert waited > 0.5
    assert not (tmp_path / locks.LOCKS / "k.owner").exists()


def _planned(*entries: prune.EntryInfo) -> prune.PruneResult:
    return prune.PruneResult(removed=list(entries), freed=sum(e.size for e in entries))


def test_removing_more_than_one_build_needs_yes_away_from_a_terminal() -> None:
    """`cache prune --keep 0` in a script or CI: refused in one line (exit 2) unless --yes; the least
    recently used build alone, or half and invalid entries with it, need no word."""
    from pystats_harness.cli.cache import confirmed

    two = _planned(info("c"), info("d"))
    with pytest.raises(ConfigError, match=r"prune would remove 2 builds \(200 B\): .*give --yes") as refused:
        confirmed(two, yes=False)  # pytest's stdin is not a terminal
    assert refused.value.exit_code == 2
    assert confirmed(two, yes=True) == {"c", "d"}
    half = info("x", state=prune.State.INVALID)
    assert confirmed(_planned(info("d"), half), yes=False) == {"d", "x"}
    assert confirmed(_planned(), yes=False) == frozenset()


def test_prune_removes_only_what_was_confirmed(tmp_path: Path) -> None:
    """What a user confirmed is all that goes, even if the policy would now choose more."""
    from pystats_harness.config import load_settings

    settings = load_settings({"cache_dir": str(tmp_path)})
    assert prune.prune(settings, prune.Policy(keep=0), only=frozenset()).removed == []
