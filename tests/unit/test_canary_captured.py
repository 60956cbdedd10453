"""Every canary rule on real data: the ``expect`` tables and the N/2N dumps of each canary captured
from seven builds (tests/data/canaries, see its README), so that removing or changing a rule fails a
test here without an engine or a build."""

from __future__ import annotations

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pystats_harness.infra.runner import RunResult
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.suite import canaries as C
from pystats_harness.suite import canary_rules as R
from pystats_harness.validate import steps
from pystats_harness.validate.report import StepResult, StepStatus, ValidationReport, to_markdown

DATA = Path(__file__).resolve().parents[1] / "data" / "canaries"
GENERATIONS = ("3.11.2", "main-1583c6e326", "main-8d46c7ed5e", "3.12.0", "3.13.5", "main-9471106fd5", "3.14.7")
G = R.JUMP_GROUP


def load(gen: str) -> dict[str, Any]:
    return json.loads((DATA / gen / "table.json").read_text())


def n_of(gen: str) -> int:
    return int(json.loads((DATA / gen / "meta.json").read_text())["n"])


def dumps(gen: str, canary: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return tuple(C.parse_dump((DATA / gen / f"{canary}-{k}.txt").read_text()) for k in ("N", "2N"))  # type: ignore[return-value]


def rederived(captured: dict[str, Any]) -> dict[str, Any]:
    """The captured table with its rules resolved again by this code (from its names, families and
    source facts): a rule removed or changed here changes the table the dumps are compared with."""
    names_by_number = {int(k): v for k, v in captured["names"].items()}
    return dict(captured, **R.resolve(names_by_number, captured["families"], captured["source"]))


@pytest.mark.parametrize("gen", GENERATIONS)
def test_captured_tables_are_what_the_rules_derive(gen: str) -> None:
    captured = load(gen)
    assert rederived(captured) == captured
    assert captured["undetermined"] == []


@pytest.mark.parametrize("gen", GENERATIONS)
@pytest.mark.parametrize("canary", sorted(C.KERNELS))
def test_every_canary_exact_on_real_dumps(gen: str, canary: str) -> None:
    table = rederived(load(gen))
    low, high = dumps(gen, canary)
    expected = table["canaries"][canary]["per_iteration"]
    assert C.compare(low, high, n_of(gen), expected, table) == []


def test_rules_per_generation_come_from_the_build() -> None:
    t311, dev, feb, t312, t313 = (load(g) for g in GENERATIONS[:5])
    # 3.11: compare-and-jump performs one of four jumps; misses re-dispatched; PRECALL skips CALL
    assert t311["groups"] == {
        G: [
            "POP_JUMP_BACKWARD_IF_FALSE",
            "POP_JUMP_BACKWARD_IF_TRUE",
            "POP_JUMP_FORWARD_IF_FALSE",
            "POP_JUMP_FORWARD_IF_TRUE",
        ]
    }
    assert t311["miss_double_counted"] is True and t311["implied"]["PRECALL_NO_KW_LEN"] == {"CALL": 1}
    # main Dec 2022: FOR_ITER_RANGE stores the loop variable; COMPARE_OP_*_JUMP performs POP_JUMP_IF_*
    assert dev["implied"]["FOR_ITER_RANGE"] == {"STORE_FAST": 1}
    assert dev["groups"] == {G: ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"]}
    assert dev["miss_double_counted"] is False
    assert dev["rules"]["COMPARE_OP_INT_JUMP"] == "applied: handler asserts POP_JUMP_IF_FALSE, POP_JUMP_IF_TRUE"
    assert dev["rules"]["STORE_FAST__STORE_FAST"] == "applied: super(STORE_FAST__STORE_FAST) = STORE_FAST + STORE_FAST"
    # main Feb 2023: still FOR_ITER_RANGE's store; COMPARE_AND_BRANCH performs the jump, and its
    # specialized forms take the jump's oparg while their base asserts which jumps those are
    assert feb["implied"]["FOR_ITER_RANGE"] == {"STORE_FAST": 1}
    assert feb["groups"] == {G: ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"]}
    assert feb["rules"]["COMPARE_AND_BRANCH_INT"] == (
        "applied: handler reads the oparg after its caches; its base asserts POP_JUMP_IF_FALSE, POP_JUMP_IF_TRUE"
    )
    assert {"COMPARE_AND_BRANCH", "COMPARE_AND_BRANCH_FLOAT", "COMPARE_AND_BRANCH_STR"} <= set(feb["implied"])
    # 3.12.0: FOR_ITER_RANGE pushes the value; no compare-and-jump forms any more
    assert t312["rules"]["FOR_ITER_RANGE"] == "not applied: handler does not assert STORE_FAST"
    assert t312["groups"] == {} and "COMPARE_OP_INT_JUMP" not in t312["names"].values()
    assert t312["implied"]["CALL_NO_KW_LIST_APPEND"] == {"POP_TOP": 1}
    # 3.13.5: no superinstructions; the __init__ shim
    assert not any("__" in name for name in t313["implied"])
    assert t313["implied"]["CALL_ALLOC_AND_ENTER_INIT"] == {"EXIT_INIT_CHECK": -1, "RETURN_VALUE": -1}
    for table in (t311, dev, feb, t312, t313):
        assert table["attempt_double_counted"] is True


def mismatches(table: dict[str, Any], gen: str) -> dict[str, list[tuple[str, int]]]:
    """``{canary: [(family, difference)]}`` of every canary of ``gen`` compared with ``table``."""
    out = {}
    for canary in sorted(C.KERNELS):
        low, high = dumps(gen, canary)
        got = C.compare(low, high, n_of(gen), table["canaries"][canary]["per_iteration"], table)
        wrong = [(m["family"], m["difference"]) for m in got if "cannot_count" not in m]
        if wrong:
            out[canary] = wrong
    return out


def test_rules_of_314_come_from_the_build() -> None:
    """3.14.7: misses written out in each handler (UPDATE_MISS_STATS, JUMP_TO_PREDICTED to the label
    after the count: counted once), and the conditional jumps stepping over NOT_TAKEN when not taken:
    without that rule, dis's NOT_TAKEN after each jump is expected and never counted."""
    t314 = load("3.14.7")
    assert t314["miss_double_counted"] is False and "JUMP_TO_PREDICTED" in t314["rules"]["misses"]
    assert t314["attempt_double_counted"] is True
    assert t314["skipped_after"] == {"POP_JUMP_IF_FALSE": ["NOT_TAKEN"], "POP_JUMP_IF_TRUE": ["NOT_TAKEN"]}
    assert t314["rules"]["NOT_TAKEN"] == "applied: skipped when not taken by POP_JUMP_IF_FALSE, POP_JUMP_IF_TRUE"
    assert "NOT_TAKEN" not in t314["canaries"]["branches"]["per_iteration"]
    assert mismatches(t314, "3.14.7") == {}
    counted = dict(t314["canaries"]["branches"]["per_iteration"], NOT_TAKEN=1)  # what dis alone says
    low, high = dumps("3.14.7", "branches")
    got = C.compare(low, high, n_of("3.14.7"), counted, t314)
    assert [(m["family"], m["difference"]) for m in got] == [("NOT_TAKEN", -n_of("3.14.7"))]


def test_rules_of_the_311_alphas_come_from_the_build() -> None:
    """Main Jan 2022 (3.11.0a4): families derived from _specialized_instructions, misses counted
    once (NAME_miss: blocks jump to the base's PREDICTED label), attempts twice (next_instr--;
    DISPATCH()), list append pushes None (no POP_TOP skipped), absolute POP_JUMP_IF_* jumps."""
    a4 = load("main-9471106fd5")
    assert a4["families"]["JUMP_ABSOLUTE_QUICK"] == "JUMP_ABSOLUTE"
    assert a4["families"]["LOAD_FAST__LOAD_FAST"] == "LOAD_FAST"
    assert a4["families"]["CALL_NO_KW_LEN"] == "CALL_NO_KW"
    assert a4["miss_double_counted"] is False and "NAME_miss:" in a4["rules"]["misses"]
    assert a4["attempt_double_counted"] is True and "DISPATCH()" in a4["rules"]["attempts"]
    assert a4["rules"]["CALL_NO_KW_LIST_APPEND"].startswith("not applied")
    assert a4["groups"] == {G: ["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"]}
    # counted with the 3.11.2 miss rule, the polymorphic canary's misses would be subtracted twice
    wrong = dict(a4, miss_double_counted=True)
    low, high = dumps("main-9471106fd5", "poly")
    assert C.compare(low, high, n_of("main-9471106fd5"), a4["canaries"]["poly"]["per_iteration"], wrong) != []
    no_attempts = dict(a4, attempt_double_counted=False)
    low, high = dumps("main-9471106fd5", "attrs")
    assert C.compare(low, high, n_of("main-9471106fd5"), a4["canaries"]["attrs"]["per_iteration"], no_attempts) != []


def test_the_issue_is_what_the_old_rules_give_on_main_dec_2022() -> None:
    """Trust at every revision: STORE_FAST one short per iteration in five canaries, and the
    jumps counted in the 3.11 group, with FOR_ITER_RANGE's rule missing and the group's members
    the 3.11 names only."""
    old = copy.deepcopy(load("main-1583c6e326"))
    del old["implied"]["FOR_ITER_RANGE"]
    old["groups"] = {G: []}
    n = n_of("main-1583c6e326")
    got = mismatches(old, "main-1583c6e326")
    assert set(got) == {"arith", "attrs", "branches", "calls", "poly"}  # extarg: i needs EXTENDED_ARG
    for canary, found in got.items():
        assert ("STORE_FAST", -n) in found, canary
    assert dict(got["branches"]) == {G: 3 * n, "POP_JUMP_IF_FALSE": -3 * n, "STORE_FAST": -n}


def test_without_source_nothing_is_judged_wrong_and_the_uncountable_is_named() -> None:
    gen = "main-1583c6e326"
    table = load(gen)
    blind = dict(table, **R.resolve({int(k): v for k, v in table["names"].items()}, table["families"], None))
    assert mismatches(blind, gen) == {}
    low, high = dumps(gen, "arith")
    got = C.compare(low, high, n_of(gen), table["canaries"]["arith"]["per_iteration"], blind)
    notes = {m["family"]: m["cannot_count"] for m in got}
    assert notes["STORE_FAST"].startswith(
        "cannot count STORE_FAST statically on this revision: FOR_ITER_RANGE: no handler"
    )
    assert "LOAD_FAST" in notes  # LOAD_FAST__LOAD_FAST ran
    assert "JUMP_BACKWARD" not in notes and "FOR_ITER" not in notes


def test_check_command_reports_what_cannot_be_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gen = "main-1583c6e326"
    table = load(gen)
    blind = dict(table, **R.resolve({int(k): v for k, v in table["names"].items()}, table["families"], None))
    blind["canaries"]["extarg"] = {"cannot_count": "cannot count canary extarg statically on this revision: x"}
    (tmp_path / "t.json").write_text(json.dumps(blind))
    for k in ("N", "2N"):
        (tmp_path / k).mkdir()
        (tmp_path / k / "d.txt").write_text((DATA / gen / f"arith-{k}.txt").read_text())
    reports = {}
    for canary in ("arith", "extarg"):
        args = ["check", str(tmp_path / "t.json"), canary, str(n_of(gen)), str(tmp_path / "N"), str(tmp_path / "2N")]
        assert C.main(args) == 0  # what cannot be counted is no mismatch...
        reports[canary] = json.loads(capsys.readouterr().out)
    # ...but the report names it: the families the blind table leaves undetermined, the refused canary whole
    arith = {m["family"]: m["cannot_count"] for m in reports["arith"]["uncounted"]}
    assert reports["arith"]["exact"] and reports["arith"]["mismatches"] == []
    assert arith["STORE_FAST"].startswith("cannot count STORE_FAST statically on this revision")
    assert reports["extarg"] == {
        "canary": "extarg",
        "n": n_of(gen),
        "python": blind.get("python"),
        "exact": True,
        "mismatches": [],
        "uncounted": [{"family": "*", "cannot_count": "cannot count canary extarg statically on this revision: x"}],
    }


def step_on_fixture(monkeypatch: pytest.MonkeyPatch, gen: str, table: dict[str, Any]) -> StepResult:
    """``step_canaries`` with every canary run replaced by the captured dump of ``gen``."""
    suite = load_suite()
    assert suite.canary_n == n_of(gen)

    def fake_run(ctx: Any, entry: Any, name: str, n: int) -> RunResult:
        which = "N" if n == suite.canary_n else "2N"
        return RunResult(0, "", "", DATA / gen, (DATA / gen / f"{name}-{which}.txt",), 0.0)

    monkeypatch.setattr(steps, "run_canary", fake_run)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return steps.step_canaries(None, None, suite, table, pool, lambda: None)  # type: ignore[arg-type]


def test_step_canaries_pass_fail_partial(monkeypatch: pytest.MonkeyPatch) -> None:
    gen = "main-1583c6e326"
    table = rederived(load(gen))
    assert step_on_fixture(monkeypatch, gen, table).status is StepStatus.PASS
    old = copy.deepcopy(table)
    del old["implied"]["FOR_ITER_RANGE"]
    failed = step_on_fixture(monkeypatch, gen, old)
    assert failed.status is StepStatus.FAIL and "5 family count(s) differ" in failed.summary
    blind = dict(table, **R.resolve({int(k): v for k, v in table["names"].items()}, table["families"], None))
    blind["canaries"] = dict(blind["canaries"], extarg={"cannot_count": "cannot count canary extarg statically: x"})
    partial = step_on_fixture(monkeypatch, gen, blind)
    assert partial.status is StepStatus.PARTIAL and not partial.ok
    assert "arith: STORE_FAST" in partial.summary and "extarg: *" in partial.summary
    assert all("cannot_count" in f for f in partial.findings)
    report = ValidationReport(
        {"revision": "r", "sha": "0" * 40, "python_version": "3.12.0a3+", "patches": []}, (partial,)
    )
    assert report.error() is None  # cannot count statically is no failure of the interpreter
    assert "cannot count STORE_FAST statically on this revision" in to_markdown(report)
