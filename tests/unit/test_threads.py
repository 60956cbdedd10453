"""The threaded canary judged (measure/threads.py) on real dumps of a default and a free-threaded
v3.13.5 build (tests/data/threads), and on copies of them with a loss, an over-count or a wrong merge
planted."""

from __future__ import annotations

import json
import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from pystats_harness.errors import ThreadsNotHeld
from pystats_harness.measure import threads
from pystats_harness.suite import thread_canary
from pystats_harness.validate import threads as validate_threads
from pystats_harness.validate.report import StepStatus, ValidationReport, to_markdown, to_rich
from tests.support.thread_dumps import PLAN
from tests.support.thread_dumps import load as _load


def _bump(path: Path, opcode: str, by: int) -> None:
    """Add ``by`` to ``opcode[OPCODE].execution_count`` in a dump file."""
    pattern = re.compile(rf"^(\s*opcode\[{opcode}\]\.execution_count : )(\d+)$", re.M)
    text, n = pattern.subn(lambda m: f"{m.group(1)}{int(m.group(2)) + by}", path.read_text())
    assert n == 1
    path.write_text(text)


def test_the_labels_of_the_sweep_round_trip() -> None:
    assert thread_canary.parse_label(thread_canary.label("calls", 8, 40000, 3) + ".txt") == ("calls", 8, 40000, 3)
    assert thread_canary.parse_label("3f2a9c.txt") is None  # the sweep's own dump, left out
    assert thread_canary.parse_label("threads-calls-Tx-K1-r0.txt") is None


def test_the_default_build_is_exact_with_every_thread_count() -> None:
    files, table = _load("3.13.5-default")
    verdict = threads.judge(files, PLAN, table, None)
    assert verdict.exact and verdict.mismatches == ()
    assert {t: set(row.values()) for t, row in verdict.worst_by_threads().items()} == {
        1: {Fraction(1)},
        2: {Fraction(1)},
        4: {Fraction(1)},
        8: {Fraction(1)},
    }
    assert verdict.line().startswith("threaded canary calls exact with 1/2/4/8 threads, 2 runs each")
    assert "not compared: objects.*, gc.*" in verdict.line()


def test_the_expectation_is_t_times_n_times_the_kernels_dis_counts() -> None:
    files, table = _load("3.13.5-default")
    verdict = threads.judge(files, PLAN, table, None)
    per_iteration = table["canaries"]["calls"]["per_iteration"]  # type: ignore[index]
    for_iter = [c for c in verdict.counted if c.family == "FOR_ITER" and c.threads == 8 and c.repeat == 0]
    assert [c.expected for c in for_iter] == [8 * 2 * 20000 * per_iteration["FOR_ITER"]] == [320000]


def test_the_free_threaded_build_loses_counts_and_says_how_many() -> None:
    files, table = _load("3.13.5-freethreading")
    verdict = threads.judge(files, PLAN, table, None)
    assert not verdict.exact
    worst = verdict.worst()
    assert worst is not None and worst.share < 1 and worst.threads > 1
    assert set(verdict.worst_by_threads()[1].values()) == {Fraction(1)}  # one thread alone is exact
    assert verdict.line().startswith(
        f"{worst.family} counted {float(worst.share):.1%} of its executions with {worst.threads} threads; worst of 2 runs"
    )


@pytest.mark.parametrize("by", [-100, 100])
def test_a_planted_loss_or_double_count_of_one_family_is_caught_with_its_share(tmp_path: Path, by: int) -> None:
    files, table = _load("3.13.5-default", tmp_path / "d")
    _bump(files[(4, 40000, 1)], "FOR_ITER_RANGE", by)  # FOR_ITER's specialized form: the family counts it
    verdict = threads.judge(files, PLAN, table, None)
    assert [(m["threads"], m["repeat"], m["counter"], m["difference"]) for m in verdict.mismatches] == [
        (4, 1, "family.FOR_ITER.execution_count", by)
    ]
    worst = verdict.worst()
    assert worst is not None and (worst.family, worst.threads, worst.repeat) == ("FOR_ITER", 4, 1)
    assert worst.share == Fraction(4 * 40000 + by, 4 * 40000)


def test_a_merge_that_keeps_one_threads_counts_is_caught(tmp_path: Path) -> None:
    """A per-thread build that assigns where it should add keeps the last thread's counts only: the dump
    of 4 threads then holds what 1 thread counts."""
    files, table = _load("3.13.5-default", tmp_path / "d")
    shutil.copyfile(files[(1, 40000, 0)], files[(4, 40000, 0)])
    verdict = threads.judge(files, PLAN, table, None)
    worst = verdict.worst()
    assert worst is not None and worst.threads == 4 and worst.share < Fraction(1, 2)
    assert "with 4 threads; worst of 2 runs" in verdict.line()


def test_a_pair_that_is_not_linear_in_threads_is_caught(tmp_path: Path) -> None:
    files, table = _load("3.13.5-default", tmp_path / "d")
    path = files[(2, 40000, 0)]
    line = next(x for x in path.read_text().splitlines() if ".pair_count[" in x)
    key, value = line.rsplit(" : ", 1)
    path.write_text(path.read_text().replace(line, f"{key} : {int(value) + 7}"))
    verdict = threads.judge(files, PLAN, table, None)
    assert [
        (m["threads"], m["counter"].startswith("pair."), m["observed"] - m["expected"]) for m in verdict.mismatches
    ] == [(2, True, 7)]


def test_a_missing_dump_or_an_uncountable_kernel_is_said_not_passed(tmp_path: Path) -> None:
    files, table = _load("3.13.5-default")
    del files[(8, 0, 1)]
    verdict = threads.judge(files, PLAN, table, None)
    assert not verdict.exact and verdict.cannot == "threaded canary left no dump for 8 thread(s), K=0, run 2"
    cannot = {"canaries": {"calls": {"cannot_count": "cannot count canary calls statically on this revision: x"}}}
    assert threads.judge({}, PLAN, cannot, None).line() == (
        "threaded canary not counted: cannot count canary calls statically on this revision: x"
    )


def _report(build: str) -> ValidationReport:
    files, table = _load(build)
    step = validate_threads.judged(threads.judge(files, PLAN, table, None))
    meta = {"revision": "v3.13.5", "sha": "f" * 40, "python_version": "3.13.5", "patches": []}
    return ValidationReport(meta, (step,))


def test_validate_fails_a_build_that_loses_counts_with_its_own_code_and_one_line() -> None:
    report = _report("3.13.5-freethreading")
    error = report.error()
    assert isinstance(error, ThreadsNotHeld) and error.exit_code == 30
    assert "\n" not in str(error) and re.search(
        r"threads: \w+ counted 9\d\.\d% of its executions with \d threads", str(error)
    )
    rows = [f for f in report.steps[0].findings if "by_family" in f]
    assert [r["threads"] for r in rows] == [1, 2, 4, 8] and rows[0]["counted"] == "100.0%"
    markdown = to_markdown(report)
    assert "| 1 | BINARY_OP | 100.0% | 13: 100.0% .. 100.0% | 2 |" in markdown
    assert json.loads(json.dumps(report.to_dict()))["steps"][0]["findings"][3]["by_family"]["FOR_ITER"] < 1


def test_validate_passes_the_default_build_and_lists_nothing_in_the_terminal() -> None:
    report = _report("3.13.5-default")
    assert report.error() is None and report.steps[0].status is StepStatus.PASS
    assert len(to_rich(report).renderables) == 1  # the step table only: exact shares are in JSON/Markdown


def test_one_thread_that_is_not_exact_leaves_threads_unjudged_with_the_reason(tmp_path: Path) -> None:
    """Neither a lost update nor a wrong merge changes one thread's counts: where one thread alone is not
    exact (seen once at 326ae71f1d), the canary's expectation does not hold there, so nothing is judged."""
    files, table = _load("3.13.5-default", tmp_path / "d")
    _bump(files[(1, 40000, 1)], "FOR_ITER_RANGE", -500)
    verdict = threads.judge(files, PLAN, table, None)
    assert not verdict.exact and verdict.cannot.startswith("threaded canary not judged: one thread alone is not exact")
    assert "FOR_ITER counted 98.8% with 1 thread in run 2" in verdict.cannot  # (40,000 - 500) / 40,000
    assert validate_threads.judged(verdict).status is StepStatus.PARTIAL


def test_the_joins_wait_for_every_thread_to_finish() -> None:
    """In this interpreter (no stats switch: the bracket is a no-op) the main thread's joins return only
    once each thread has finished its kernel; a join that returned early (the sentinel lock not held by
    its thread, as up to 3.12 threading holds it) is reported as cannot_run, not counted short."""
    for count in (1, 4):  # one thread: no alive thread's done lock to wait on besides the join
        done = thread_canary.one("calls", count, 20000)
        assert done == {
            "threads": count,
            "k": 20000,
            "exited": (count + 1) // 2,
            "alive": count // 2,
            "join": done["join"],
        }
        assert done["join"] in ("start_joinable_thread", "_set_sentinel")


def test_the_315_free_threaded_build_drops_the_threads_alive_at_the_dump() -> None:
    """v3.15.0rc1 --config freethreading (per-thread stats, gh-137189): the canary's odd threads, still
    alive when the interpreter dumps at exit, are missing from the dump; the even ones, merged when they
    exited, are all there: half of the executions with 2, 4 and 8 threads, not a lost-update share."""
    files, table = _load("3.15.0rc1-freethreading")
    verdict = threads.judge(files, PLAN, table, None)
    assert not verdict.exact and verdict.alive_missing()
    assert set(verdict.worst_by_threads()[1].values()) == {Fraction(1)}
    assert verdict.line().startswith("the threads still alive at the dump are missing from it")
    assert "1/2, 2/4, 4/8 threads exited" in verdict.line()
    ft313, table313 = _load("3.13.5-freethreading")  # races lose a varying share: not this pattern
    assert not threads.judge(ft313, PLAN, table313, None).alive_missing()
