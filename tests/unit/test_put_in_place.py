"""A directory put in place once: threads and processes finishing at once never remove each other's."""

from __future__ import annotations

import threading
from pathlib import Path

from pystats_harness.infra.fs import put_in_place


def _staged(root: Path, name: str) -> Path:
    staging = root / f".staging-{name}"
    (staging / "benchmarks" / "bm_x").mkdir(parents=True)
    (staging / "benchmarks" / "bm_x" / "pyproject.toml").write_text(name)
    return staging


def test_the_first_is_put_in_place_and_the_second_leaves_it_alone(tmp_path: Path) -> None:
    final = tmp_path / "1.14.0"
    assert put_in_place(_staged(tmp_path, "a"), final, "COMPLETE")
    kept = (final / "benchmarks" / "bm_x" / "pyproject.toml").stat().st_ino
    second = _staged(tmp_path, "b")
    assert not put_in_place(second, final, "COMPLETE")
    assert second.is_dir()  # the caller removes it
    assert (final / "benchmarks" / "bm_x" / "pyproject.toml").stat().st_ino == kept
    assert (final / "benchmarks" / "bm_x" / "pyproject.toml").read_text() == "a"


def test_a_leftover_without_its_marker_is_replaced(tmp_path: Path) -> None:
    final = tmp_path / "1.14.0"
    (final / "benchmarks").mkdir(parents=True)  # a process killed between the move and the marker
    assert put_in_place(_staged(tmp_path, "a"), final, "COMPLETE")
    assert (final / "COMPLETE").is_file() and (final / "benchmarks" / "bm_x" / "pyproject.toml").is_file()


def test_eight_threads_at_once_one_wins_and_the_winners_files_stay(tmp_path: Path) -> None:
    """What a Dask worker with two threads met: a unit's build and a measurement extracting at once, one
    removing the directory the other was reading (FileNotFoundError on bm_concurrent_imap/pyproject.toml)."""
    final = tmp_path / "1.14.0"
    staged = [_staged(tmp_path, str(n)) for n in range(8)]
    won: list[bool] = []
    gone: list[str] = []
    start = threading.Barrier(len(staged))

    def one(staging: Path) -> None:
        start.wait()
        won.append(put_in_place(staging, final, "COMPLETE"))
        if not (final / "benchmarks" / "bm_x" / "pyproject.toml").is_file():  # never gone for a reader
            gone.append(staging.name)

    threads = [threading.Thread(target=one, args=(s,)) for s in staged]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(won) == [False] * 7 + [True] and gone == []
