"""Collect's threads check (collect/threads.py): which timed functions ran threads, the build's threaded
canary asked only when that matters, and the ``lossy`` verdict with its own exit code (31)."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.collect import one, report, trust
from pystats_harness.collect.exactness import Status
from pystats_harness.collect.threads import MIN_OTHER_CPU, ThreadUse, check_threads
from pystats_harness.measure import threads
from pystats_harness.measure.suiteconfig import ThreadCanary
from tests.support.thread_dumps import PLAN
from tests.support.thread_dumps import load as _load

ONE = ThreadUse("nbody", 0.00001, 1)
POOL = ThreadUse("imap_unordered_threads", 0.0412, 1)


def _canary(build: str) -> threads.ThreadVerdict:
    files, table = _load(build)
    return threads.judge(files, PLAN, table, None)


def _never() -> threads.ThreadVerdict:
    raise AssertionError("the canary is asked only when threads ran or were not measured")


def test_what_the_manual_run_reports_is_read_per_timed_function() -> None:
    report_line = {"bracketed": ["bm"], "threads": {"other_cpu_seconds": 0.25, "alive_after": 3}}
    use = ThreadUse.from_report(report_line, "fallback")
    assert use == ThreadUse("bm", 0.25, 3) and use.ran_threads
    assert use.describe() == "bm: other threads 250.0 ms CPU, 2 other thread(s) alive after"
    assert ThreadUse.from_report({"bracketed": ["bm"]}, "x") is None  # not measured is not "no threads"
    assert not ThreadUse("f", MIN_OTHER_CPU / 2, 1).ran_threads
    assert ThreadUse("f", 0.0, 2).ran_threads  # a thread still holding Python frames at the end


def test_one_thread_passes_without_asking_the_canary() -> None:
    check = check_threads((ONE,), _never)
    assert (check.status, check.detail) == (Status.PASS, "one thread counted (nbody: other threads 0.0 ms CPU)")


def test_threads_on_a_build_that_holds_pass_with_the_record_that_they_ran() -> None:
    check = check_threads((ONE, POOL), lambda: _canary("3.13.5-default"))
    assert check.status is Status.PASS
    assert check.detail.startswith("ran threads: imap_unordered_threads: other threads 41.2 ms CPU; counters hold")
    outcome = one.Outcome("concurrent_imap", "bm_concurrent_imap", trust.Verdict.TRUSTED, checks=(check,))
    assert report.detail(outcome).startswith("threads: ran threads: imap_unordered_threads")


def test_threads_on_a_build_that_loses_counts_make_the_benchmark_lossy_whatever_else_failed() -> None:
    lossy = check_threads((ONE, POOL), lambda: _canary("3.13.5-freethreading"))
    assert lossy.status is Status.FAIL
    assert "counters lose updates under threads in this build: " in lossy.detail
    assert "of its executions with" in lossy.detail and "worst of 2 runs" in lossy.detail
    disagree = trust.CheckResult(trust.Check.AGREEMENT, Status.FAIL, "workers disagree")
    passed = [
        trust.CheckResult(c, Status.PASS, "")
        for c in trust.Check
        if c not in (trust.Check.AGREEMENT, trust.Check.THREADS)
    ]
    assert trust.verdict([*passed, disagree, lossy]) is trust.Verdict.LOSSY
    outcome = one.Outcome("concurrent_imap", "bm", trust.Verdict.LOSSY, checks=(*passed, disagree, lossy))
    assert report.detail(outcome).startswith("threads: ran threads: imap_unordered_threads")
    single = check_threads((ONE,), _never)  # the same build: a single-threaded benchmark is judged as today
    assert (
        trust.verdict([*passed, trust.CheckResult(trust.Check.AGREEMENT, Status.PASS, ""), single])
        is trust.Verdict.TRUSTED
    )


def test_not_measured_is_partial_on_a_lossy_build_and_a_pass_where_counters_hold() -> None:
    unknown = check_threads(None, lambda: _canary("3.13.5-freethreading"))
    assert unknown.status is Status.NOT_CHECKED and "whether threads ran was not measured" in unknown.detail
    assert check_threads(None, lambda: _canary("3.13.5-default")).status is Status.PASS
    cannot = threads.ThreadVerdict(ThreadCanary(), cannot="threaded canary not counted: x")
    assert check_threads((POOL,), lambda: cannot).status is Status.NOT_CHECKED


def test_the_exit_code_of_lossy_comes_after_failed_and_untrusted(tmp_path: Path) -> None:
    lossy = one.Outcome("concurrent_imap", "bm", trust.Verdict.LOSSY)
    good = one.Outcome("nbody", "bm_nbody", trust.Verdict.TRUSTED)
    error = report.exit_error([good, lossy])
    assert error is not None and error.exit_code == 31 and "concurrent_imap" in str(error)
    untrusted = one.Outcome("go", "bm_go", trust.Verdict.UNTRUSTED)
    assert report.exit_error([lossy, untrusted]).exit_code == 26  # type: ignore[union-attr]
    assert "lossy: it ran threads" in report.legend([lossy])
