"""What a bisect says about a commit it could not measure: build-failure details, error kinds, JSON rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness import errors
from pystats_harness.bisect.exitcodes import EXIT_ABORT, EXIT_SKIP, exit_code_for_error
from pystats_harness.errors import BuildFailed, ConfigError, EndpointFailed, RunFailed
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.measure.measurer import Measured, Source, failure_detail, with_unexecuted_opcodes
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome, outcome_for_error

LOG = Path("/cache/logs/abc1234567-make.log")
COMPILER_ERROR = "../src/Python/ceval.c:12:5: error: expected ';' before '}' token"
MAKE_ERROR = "make: *** [Makefile:123: Python/ceval.o] Error 1"
TAIL = [
    "gcc -c -O2 -o Python/ceval.o ../src/Python/ceval.c",
    "../src/Python/ceval.c:7:1: warning: unused variable 'x' [-Wunused-variable]",
    f"   {COMPILER_ERROR}",
    "../src/Python/ceval.c:40:2: error: 'y' undeclared (first use in this function)",
    MAKE_ERROR,
]


def build_failed(tail: list[str], phase: str = "make", status: int = 2) -> BuildFailed:
    return BuildFailed(phase=phase, commit="abc1234567", status=status, log_tail=tail, log_path=LOG)


# --- BuildFailed ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tail, first",
    [
        (TAIL, COMPILER_ERROR),  # the first of several, stripped; warnings are not errors
        (TAIL[:2] + TAIL[4:], MAKE_ERROR),
        (
            ["checking for gcc... no", "configure: error: no acceptable C compiler found in $PATH"],
            "configure: error: no acceptable C compiler found in $PATH",
        ),
        (TAIL[:2], ""),
        ([], ""),
    ],
    ids=["compiler error first", "make error", "configure error", "no error line", "empty tail"],
)
def test_first_error_is_the_first_matching_line(tail: list[str], first: str) -> None:
    assert build_failed(tail).first_error() == first


def test_build_failed_message_points_at_the_tail_and_the_log() -> None:
    exc = build_failed(TAIL)
    assert str(exc) == f"make failed for abc1234567 (exit 2); last 5 log lines above; full log: {LOG}"
    assert (exc.phase, exc.status, exc.log_tail, exc.log_path) == ("make", 2, tuple(TAIL), LOG)


# --- failure_detail -----------------------------------------------------------------------------------


def test_failure_detail_names_phase_commit_status_first_error_and_log() -> None:
    exc = build_failed(TAIL)
    outcome = outcome_for_error(exc)
    assert outcome is not None
    got = failure_detail(exc, outcome)
    assert got.failure is Failure.BUILD_FAILED and got.value is None
    assert got.detail == f"make failed for abc1234567 (exit 2): {COMPILER_ERROR}; full log: {LOG}"
    assert got.reason == f"build failed: {got.detail}"


def test_failure_detail_without_an_error_line_still_names_phase_status_and_log() -> None:
    exc = build_failed(["checking for gcc... gcc", "Killed"], phase="configure", status=137)
    got = failure_detail(exc, Outcome.failed(Failure.BUILD_FAILED, "configure failed"))
    assert got.detail == f"configure failed for abc1234567 (exit 137); full log: {LOG}"


def test_failure_detail_shortens_a_long_error_line_and_keeps_the_failure_kind() -> None:
    long_line = "../src/Python/ceval.c:1:1: error: " + "x" * 500
    got = failure_detail(build_failed([long_line]), Outcome.failed(Failure.PATCH_FAILED, "?"))
    assert got.failure is Failure.PATCH_FAILED
    assert got.detail == f"make failed for abc1234567 (exit 2): {long_line[:200]}; full log: {LOG}"


def test_failure_detail_leaves_other_errors_alone() -> None:
    outcome = Outcome.failed(Failure.RUN_FAILED, "manual run of nbody exited 1")
    assert failure_detail(RunFailed("manual run of nbody exited 1"), outcome) is outcome


# --- per-commit vs setup errors -----------------------------------------------------------------------


class _MirrorGone(errors.MirrorError):
    """A mirror error that is not about one commit (a subclass other than CheckoutFailed)."""


@pytest.mark.parametrize(
    "exc, code, failure, detail",
    [
        (errors.CheckoutFailed("b" * 40, "unable to read tree"), EXIT_SKIP, Failure.CHECKOUT_FAILED, None),
        (errors.MirrorError("mirror /m is locked\nretry later"), EXIT_ABORT, None, None),
        (_MirrorGone("mirror /m vanished"), EXIT_ABORT, None, None),
    ],
    ids=["checkout failed: skip", "mirror error: abort", "mirror subclass: abort"],
)
def test_checkout_failed_skips_other_mirror_errors_abort(
    exc: errors.MirrorError, code: int, failure: Failure | None, detail: str | None
) -> None:
    assert exit_code_for_error(exc) == code
    outcome = outcome_for_error(exc)
    assert (outcome.failure if outcome else None) == failure
    if outcome is not None:
        assert outcome.detail == f"cannot check out {'b' * 12}: unable to read tree"


# --- Measured.to_dict -----------------------------------------------------------------------------------

COMMIT = CommitInfo(rev="main~3", sha="c" * 40, date="2024-05-01T12:00:00+00:00", subject="gh-1: fix")


def test_measured_failure_row_round_trips_through_json() -> None:
    outcome = failure_detail(build_failed(TAIL), Outcome.failed(Failure.BUILD_FAILED))
    rec = Measured(COMMIT, outcome, Source.FAILED, built=True, build_key="k1", seconds={"plan": 0.123, "build": 61.789})
    row = json.loads(json.dumps(rec.to_dict(4, "c4")))
    assert row == {
        "index": 4,
        "label": "c4",
        "sha": "c" * 40,
        "source": "failed",
        "built": True,
        "build_key": "k1",
        "value": None,
        "failure": "build failed",
        "detail": outcome.detail,
        "seconds": {"plan": 0.12, "build": 61.79},
        "worker": "",
        "upstream": "",
    }
    assert Failure(row["failure"]) is Failure.BUILD_FAILED and Source(row["source"]) is Source.FAILED


def test_measured_value_row_has_no_failure() -> None:
    row = Measured(COMMIT, Outcome.ok(0.25), Source.RESULTS_STORE).to_dict(0, "good")
    assert type(row["source"]) is str and row["source"] == "results store"
    assert (row["value"], row["failure"], row["built"]) == (0.25, None, False)
    assert json.loads(json.dumps(row))["value"] == 0.25


# --- EndpointFailed ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cause, code",
    [(build_failed(TAIL), 7), (ConfigError("--metric names no counter"), 2)],
    ids=["build failed", "config error"],
)
def test_endpoint_failed_exits_with_the_code_of_its_cause(cause: errors.HarnessError, code: int) -> None:
    exc = EndpointFailed("--good v3.13.0 cannot be measured", cause=cause)
    assert exc.exit_code == cause.exit_code == code
    assert exc.cause is cause and str(exc) == "--good v3.13.0 cannot be measured"
    assert errors.HarnessError.exit_code == 1 and EndpointFailed.exit_code == 1  # set per instance only


def test_an_opcode_the_build_has_but_never_executed_counts_0_and_an_unknown_name_stays_absent() -> None:
    dumped = {"opcode.LOAD_FAST_BORROW.execution_count": 7.0, "opcode.RESUME.execution_count": 1.0}
    filled = with_unexecuted_opcodes(dumped, ("<0>", "LOAD_FAST", "LOAD_FAST_BORROW", "RESUME"))
    assert filled == {**dumped, "opcode.LOAD_FAST.execution_count": 0.0}  # counts kept, placeholders skipped
    assert parse_metric("opcode.LOAD_FAST.execution_count").evaluate(filled) == 0
    with pytest.raises(errors.MissingCounters):  # a name the build does not have is still refused
        parse_metric("opcode.LOAD_FASTT.execution_count").evaluate(filled)
    assert with_unexecuted_opcodes(dumped, ()) == dumped  # an entry without names.json: as dumped
    # a dump that counted no opcode (nothing ran in the bracket) gets no zeros: its metric stays undefined
    assert with_unexecuted_opcodes({"objects.allocations": 3.0}, ("LOAD_FAST",)) == {"objects.allocations": 3.0}
    with pytest.raises(errors.MissingCounters):
        parse_metric("opcode.LOAD_FAST.execution_count").evaluate(with_unexecuted_opcodes({}, ("LOAD_FAST",)))
