"""The in-interpreter reference suite (pystats_harness/suite): canary arithmetic on synthetic dumps,
the pyperf bracketed-loop rule, the drivers and workloads on the host interpreter (no stats build
needed: these check plumbing and determinism, not counts), the wheelhouse script and suite.toml."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pystats_harness.suite import canaries as C
from pystats_harness.suite.automated import expected_bracketed_loops
from pystats_harness.suite.canary_rules import JUMP_GROUP as G
from pystats_harness.suite.manual import bracketed_loops

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "pystats_harness" / "suite"
CONFIG = ROOT / "configs" / "suite.toml"


def run_py(*args: str, env: dict[str, str] | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ, PYTHONHASHSEED="0")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-B", *args], capture_output=True, text=True, timeout=timeout, env=full_env, cwd="/"
    )


# --- synthetic tables and dumps ---------------------------------------------------------------

TABLE_313 = {
    "python": "3.13.5",
    "names": {
        "1": "LOAD_FAST",
        "2": "LOAD_ATTR",
        "3": "LOAD_ATTR_SLOT",
        "4": "CALL",
        "5": "CALL_LIST_APPEND",
        "6": "POP_TOP",
        "7": "FOR_ITER",
        "8": "FOR_ITER_RANGE",
        "9": "JUMP_BACKWARD",
    },
    "families": {"LOAD_ATTR_SLOT": "LOAD_ATTR", "CALL_LIST_APPEND": "CALL", "FOR_ITER_RANGE": "FOR_ITER"},
    "implied": {"CALL_LIST_APPEND": {"POP_TOP": 1}},
    "groups": {},
    "miss_double_counted": False,
    "attempt_double_counted": True,
}

TABLE_311 = {
    "python": "3.11.2",
    "names": {
        "10": "LOAD_FAST",
        "11": "LOAD_FAST__LOAD_FAST",
        "12": "COMPARE_OP",
        "13": "COMPARE_OP_INT_JUMP",
        "14": "POP_JUMP_FORWARD_IF_FALSE",
        "15": "POP_JUMP_BACKWARD_IF_TRUE",
        "16": "FOR_ITER",
        "17": "LOAD_ATTR",
        "18": "LOAD_ATTR_ADAPTIVE",
        "19": "LOAD_ATTR_SLOT",
        "20": "JUMP_BACKWARD",
        "21": "JUMP_BACKWARD_QUICK",
    },
    "families": {
        "LOAD_FAST__LOAD_FAST": "LOAD_FAST",
        "COMPARE_OP_INT_JUMP": "COMPARE_OP",
        "LOAD_ATTR_ADAPTIVE": "LOAD_ATTR",
        "LOAD_ATTR_SLOT": "LOAD_ATTR",
        "JUMP_BACKWARD_QUICK": "JUMP_BACKWARD",
    },
    "implied": {
        "LOAD_FAST__LOAD_FAST": {"LOAD_FAST": 1},
        "COMPARE_OP_INT_JUMP": {G: 1},
    },
    "groups": {G: ["POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE"]},
    "miss_double_counted": True,
    "attempt_double_counted": True,
}


def entry(execs: int = 0, success: int = 0, failure: int = 0, miss: int = 0) -> dict[str, int]:
    return {"execution_count": execs, "success": success, "failure": failure, "miss": miss}


def test_parse_dump_named_numeric_indented_and_summed() -> None:
    text = (
        "opcode[LOAD_ATTR].specializable : 1\n"
        "    opcode[LOAD_ATTR].specialization.success : 2\n"
        "    opcode[LOAD_ATTR].specialization.failure_kinds[3] : 9\n"
        "    opcode[LOAD_ATTR].execution_count : 40\n"
        "opcode[LOAD_ATTR].pair_count[LOAD_FAST] : 7\n"
        "opcode[106].execution_count: 5\n"
        "Calls to PyEval_EvalDefault: 3\n"
        "    opcode[LOAD_ATTR].execution_count : 2\n"
        "    opcode[LOAD_ATTR].specialization.miss : 4\n"
    )
    parsed = C.parse_dump(text)
    assert parsed == {"LOAD_ATTR": entry(42, success=2, miss=4), "106": entry(5)}


def test_parse_dump_dir_sums_txt_files_only(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("opcode[NOP].execution_count : 2\n")
    (tmp_path / "b.txt").write_text("opcode[NOP].execution_count : 3\n")
    (tmp_path / "notes.md").write_text("opcode[NOP].execution_count : 100\n")
    assert C.parse_dump_dir(str(tmp_path)) == {"NOP": entry(5)}


def test_family_counts_313_attempts_and_implied() -> None:
    dump = {
        "LOAD_ATTR": entry(10, success=1, failure=2, miss=50),  # 3 attempts re-dispatched; misses not
        "LOAD_ATTR_SLOT": entry(100, miss=50),
        "CALL_LIST_APPEND": entry(7),
        "POP_TOP": entry(1),
        "FOR_ITER": entry(0, failure=0),
    }
    got = C.family_counts(dump, TABLE_313)
    assert got == {"LOAD_ATTR": 107, "CALL": 7, "POP_TOP": 8}


def test_family_counts_315_resume_specializes_in_place() -> None:
    """3.15's RESUME counts an attempt (success, or failure after a RESUME_CHECK miss) and goes on
    without re-dispatching: its attempts are not subtracted, the other families' still are."""
    table = {
        "families": {"RESUME_CHECK": "RESUME", "LOAD_ATTR_SLOT": "LOAD_ATTR"},
        "attempt_double_counted": True,
        "attempt_in_place": ["RESUME"],
    }
    dump = {
        "RESUME": entry(35, success=35, failure=2),
        "RESUME_CHECK": entry(1000, miss=2),
        "LOAD_ATTR": entry(10, success=3),
        "LOAD_ATTR_SLOT": entry(100),
    }
    assert C.family_counts(dump, table) == {"RESUME": 1035, "LOAD_ATTR": 107}
    assert C.family_counts(dump, dict(table, attempt_in_place=[]))["RESUME"] == 998


def test_family_counts_311_numeric_misses_superinstructions_group() -> None:
    dump = {
        "17": entry(5, success=2, miss=6),  # LOAD_ATTR base: 2 attempts and 6 misses double counted
        "18": entry(4),  # LOAD_ATTR_ADAPTIVE
        "19": entry(30, miss=6),  # LOAD_ATTR_SLOT (its own miss counter is not used)
        "11": entry(20),  # LOAD_FAST__LOAD_FAST = 2 LOAD_FAST each
        "10": entry(3),
        "13": entry(8),  # COMPARE_OP_INT_JUMP also does the jump
        "14": entry(2),
        "15": entry(1),
        "16": entry(9, failure=9),  # FOR_ITER: failures classify iterators, no attempts
    }
    got = C.family_counts(dump, TABLE_311)
    assert got == {
        "LOAD_ATTR": 5 + 4 + 30 - 2 - 6,
        "LOAD_FAST": 43,
        "COMPARE_OP": 8,
        G: 11,
        "FOR_ITER": 9,
    }


def test_family_counts_plain_int_mapping_means_no_correction() -> None:
    assert C.family_counts({"LOAD_ATTR": 5, "LOAD_ATTR_SLOT": 6}, TABLE_313) == {"LOAD_ATTR": 11}


def test_compare_exact_and_mismatch() -> None:
    per_iter = {"FOR_ITER": 1, "LOAD_FAST": 2, "LOAD_ATTR": 1, "JUMP_BACKWARD": 1}
    low = {"FOR_ITER": entry(11), "LOAD_FAST": entry(25), "LOAD_ATTR": entry(12, success=1), "JUMP_BACKWARD": entry(10)}
    # 2N run: startup constants identical, 10 more iterations, one more failed attempt (backoff)
    high = {
        "FOR_ITER_RANGE": entry(10),
        "FOR_ITER": entry(11),
        "LOAD_FAST": entry(45),
        "LOAD_ATTR": entry(13, success=1, failure=1),
        "LOAD_ATTR_SLOT": entry(10),
        "JUMP_BACKWARD": entry(20),
    }
    assert C.compare(low, high, 10, per_iter, TABLE_313) == []
    high["LOAD_FAST"] = entry(46)
    high["NOP"] = entry(3)
    assert C.compare(low, high, 10, per_iter, TABLE_313) == [
        {"family": "LOAD_FAST", "expected": 20, "observed": 21, "difference": 1, "attempts": 0, "misses": 0},
        {"family": "NOP", "expected": 0, "observed": 3, "difference": 3, "attempts": 0, "misses": 0},
    ]


def test_compare_reports_misses_of_a_mismatching_family() -> None:
    # a table that wrongly says misses are not double counted, on 3.11-style data
    table = dict(TABLE_311, miss_double_counted=False)
    low = {"17": entry(2, miss=1), "19": entry(0)}
    high = {"17": entry(5, miss=4), "19": entry(10, miss=4)}
    (m,) = C.compare(low, high, 5, {"LOAD_ATTR": 2}, table)
    assert m["difference"] == 3 == m["misses"]
    assert C.compare(low, high, 5, {"LOAD_ATTR": 2}, TABLE_311) == []


def test_compare_accepts_per_iteration_by_number() -> None:
    low = {"10": entry(5), "20": entry(0)}
    high = {"10": entry(7), "11": entry(4), "21": entry(5)}
    assert C.compare(low, high, 5, {"10": 2, "20": 1}, TABLE_311) == []


def test_expected_family_counts_groups_311_jumps() -> None:
    got = C.expected_family_counts(
        {"POP_JUMP_FORWARD_IF_FALSE": 3, "POP_JUMP_BACKWARD_IF_TRUE": 1, "COMPARE_OP": 4}, TABLE_311
    )
    assert got == {G: 4, "COMPARE_OP": 4}


# --- the static walk, on the host interpreter --------------------------------------------------


@pytest.mark.parametrize("name", sorted(C.KERNELS))
def test_every_canary_walks(name: str) -> None:
    counts = C.per_iteration(name)
    assert counts["FOR_ITER"] == 1
    assert sum(v for k, v in counts.items() if k.startswith("JUMP_BACKWARD")) == 1
    assert all(isinstance(v, int) and v > 0 for v in counts.values())


@pytest.mark.parametrize("name", sorted(C.KERNELS))
def test_canary_kernels_compute_something_deterministic(name: str) -> None:
    """A value (not None), the same on every call, and one that depends on n (branches: its branches
    cancel out, by design, so 0 whatever n; its work is counted by the walk)."""
    kernel = C.KERNELS[name]
    first = kernel(50)
    assert first is not None and first == kernel(50)
    assert isinstance(first, (int, float, tuple))
    if name == "branches":
        assert first == kernel(7) == 0
    else:
        assert first != kernel(51)


def test_calls_canary_counts_callee_bodies() -> None:
    counts = C.per_iteration("calls")
    assert counts["RESUME"] == 2 and counts["RETURN_VALUE"] == 2  # _add and _Counter.get


def test_extarg_canary_has_extended_args() -> None:
    assert C.per_iteration("extarg").get("EXTENDED_ARG", 0) >= 1


def test_undeclared_branch_is_refused() -> None:
    def kernel(n):
        acc = 0
        for i in range(n):
            if i > 3:
                acc += 1
        return acc

    with pytest.raises(C.CanaryError, match="undeclared branch"):
        C.walk_loop(kernel)
    assert C.walk_loop(kernel, (True,))[-1].startswith("JUMP_BACKWARD")
    with pytest.raises(C.CanaryError, match="unused"):
        C.walk_loop(kernel, (True, False))


def test_nested_loops_are_refused() -> None:
    def kernel(n):
        for _i in range(n):
            for _j in range(2):
                pass

    with pytest.raises(C.CanaryError):
        C.walk_loop(kernel)


def test_expect_command_outputs_json_table(tmp_path: Path) -> None:
    out = run_py(str(SUITE / "canaries.py"), "expect", "--source", str(tmp_path), "arith", "branches")
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    assert set(table["canaries"]) == {"arith", "branches"}
    assert table["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    names = table["names"]
    for canary in table["canaries"].values():
        by_name = {names[k]: v for k, v in canary["per_iteration_by_number"].items()}
        assert by_name == canary["per_iteration"]
    # no interpreter source under --source: no rule is guessed, each one the host needs is undetermined
    assert table["source"] is None and table["implied"] == {}
    undetermined = {u["rule"] for u in table["undetermined"]}
    assert {"misses", "attempts"} <= undetermined
    if sys.version_info < (3, 12):
        assert "COMPARE_OP_INT_JUMP" in undetermined


def test_check_command_exit_codes(tmp_path: Path) -> None:
    table = dict(TABLE_313, canaries={"k": {"per_iteration": {"LOAD_FAST": 2}}})
    (tmp_path / "t.json").write_text(json.dumps(table))
    (tmp_path / "n").mkdir()
    (tmp_path / "n2").mkdir()
    (tmp_path / "n" / "x.txt").write_text("opcode[LOAD_FAST].execution_count : 10\n")
    (tmp_path / "n2" / "y.txt").write_text("opcode[LOAD_FAST].execution_count : 16\n")
    args = (
        str(SUITE / "canaries.py"),
        "check",
        str(tmp_path / "t.json"),
        "k",
        "3",
        str(tmp_path / "n"),
        str(tmp_path / "n2"),
    )
    ok = run_py(*args)
    assert ok.returncode == 0 and json.loads(ok.stdout)["exact"] is True
    (tmp_path / "n2" / "y.txt").write_text("opcode[LOAD_FAST].execution_count : 17\n")
    bad = run_py(*args)
    assert bad.returncode == 1 and json.loads(bad.stdout)["mismatches"][0]["difference"] == 1
    assert run_py(str(SUITE / "canaries.py"), "run", "nope", "3").returncode == 2


# --- bracketed-loop rules --------------------------------------------------------------------


def test_expected_bracketed_loops() -> None:
    assert expected_bracketed_loops(10, 1, 2) == 20
    assert expected_bracketed_loops(10, 3, 2, warmups=5) == 60  # warmups are cleared by the hook
    assert expected_bracketed_loops(7, 2, 1) == 14  # one worker dump
    for bad in ((0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 1, 1, -1), (1.5, 1, 1)):
        with pytest.raises(ValueError):
            expected_bracketed_loops(*bad)
    assert bracketed_loops(10) == 10 and bracketed_loops(10, 3) == 30


# --- drivers and workloads on the host interpreter ---------------------------------------------


@pytest.fixture(scope="module")
def workload_names() -> list[str]:
    code = f"import sys; sys.path.insert(0, {str(SUITE)!r}); import workloads; print(' '.join(workloads.ALL))"
    out = run_py("-c", code)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


PROBE = """
import gc, sys
sys.dont_write_bytecode = True
sys.path.insert(0, {suite!r})
import common
results = {{}}
for name in {names!r}:
    m = common.load(name)
    if hasattr(m, "setup"):
        m.setup()
    gc.collect()
    gc.disable()
    first = m.run(1)
    second = m.run(2)
    garbage = gc.collect()
    gc.enable()
    results[name] = [repr(first), repr(second), garbage]
print(repr(results))
"""


def test_workload_list_matches_files_and_config(workload_names: list[str]) -> None:
    files = sorted(p.stem for p in (SUITE / "workloads").glob("*.py") if p.stem != "__init__")
    assert sorted(workload_names) == files
    config = tomllib.loads(CONFIG.read_text())
    probes = {config["suite"]["null_workload"], config["suite"]["leak_workload"], "leaky_alloc"}
    benchmarks = set(workload_names) - probes
    assert set(config["workloads"]) == benchmarks and len(benchmarks) >= 8


def test_workloads_deterministic_cycle_free_and_hash_seed_independent(workload_names: list[str]) -> None:
    probe = PROBE.format(suite=str(SUITE), names=workload_names)
    outs = [run_py("-c", probe, env={"PYTHONHASHSEED": seed}) for seed in ("0", "12345")]
    for out in outs:
        assert out.returncode == 0, out.stderr
    results = [eval(out.stdout) for out in outs]
    assert results[0] == results[1], "a workload depends on PYTHONHASHSEED"
    for name, (first, second, garbage) in results[0].items():
        assert first == second, f"{name}: run(1) and run(2) differ -> per-loop work is not identical"
        assert garbage == 0, f"{name}: leaves {garbage} objects in reference cycles (freed by GC, not per loop)"


def test_manual_driver_without_stats_switch_warns_and_runs() -> None:
    assert not hasattr(sys, "_stats_on"), "the host interpreter is a stats build?"
    out = run_py(str(SUITE / "manual.py"), "fannkuch", "1", "--values", "2", "--warmups", "1")
    assert out.returncode == 0, out.stderr
    assert "WARNING: sys._stats_on/_stats_off are missing" in out.stderr
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines())
    assert lines["result"] == "(228, 16)" and lines["bracketed_loops"] == "2"
    assert float(lines["seconds_per_loop"]) > 0


def test_manual_driver_bad_arguments() -> None:
    assert run_py(str(SUITE / "manual.py"), "nbody", "0").returncode == 2
    bad = run_py(str(SUITE / "manual.py"), "no_such_workload", "1")
    assert bad.returncode == 2 and "unknown workload" in bad.stderr
    assert run_py(str(SUITE / "manual.py"), "../etc", "1").returncode == 2


def test_drivers_do_not_write_bytecode(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "suite"
    shutil.copytree(SUITE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run(
        [sys.executable, str(copy / "manual.py"), "null", "1"], capture_output=True, text=True, timeout=60, cwd="/"
    )
    assert out.returncode == 0, out.stderr
    assert not list(copy.rglob("*.pyc")), "a driver wrote bytecode (the suite is mounted read-only)"


SITE = os.environ.get("PYSTATS_SUITE_SITE", "")
needs_pyperf = pytest.mark.skipif(
    not (SITE and (Path(SITE) / "pyperf").is_dir()),
    reason="set PYSTATS_SUITE_SITE to a make-wheelhouse.sh site/ directory to run real pyperf",
)


def test_automated_driver_without_pyperf(tmp_path: Path) -> None:
    out = run_py(
        str(SUITE / "automated.py"),
        "null",
        "--site",
        str(tmp_path),
        "--loops",
        "1",
        env={"PYSTATS_SUITE_SITE": "", "PYTHONPATH": ""},
    )
    if out.returncode == 0:
        pytest.skip("pyperf is importable on the host without the wheelhouse")
    assert out.returncode == 2 and "cannot import pyperf" in out.stderr


@needs_pyperf
def test_automated_driver_plumbing_with_real_pyperf(tmp_path: Path) -> None:
    # The host is no stats build, so use pyperf's _test_hook: checks the worker command line
    # (--site, workload, -B), PYTHONHASHSEED inheritance and the loops/values/processes rule.
    out_json = tmp_path / "out.json"
    out = run_py(
        str(SUITE / "automated.py"),
        "null",
        "--site",
        SITE,
        "--loops",
        "3",
        "--warmups",
        "0",
        "--values",
        "2",
        "--processes",
        "2",
        "--hook",
        "_test_hook",
        "-q",
        "-o",
        str(out_json),
        env={"PYSTATS_SUITE_SITE": ""},
    )
    assert out.returncode == 0, out.stderr + out.stdout
    doc = json.loads(out_json.read_text())
    (bench,) = doc["benchmarks"]
    common = dict(doc.get("metadata", {}), **bench.get("metadata", {}))
    runs = [dict(common, **r.get("metadata", {}), values=r.get("values", [])) for r in bench["runs"]]
    assert len(runs) == 2 and all(len(r["values"]) == 2 for r in runs)
    for run in runs:
        assert run["loops"] == 3 and run["python_hash_seed"] == 0
        assert run["_test_hook"] == 2  # the hook was entered once per value: 2 brackets per worker
        assert expected_bracketed_loops(run["loops"], len(run["values"]), 1) == 6
    assert not list(SUITE.rglob("__pycache__/automated*.pyc"))


@needs_pyperf
def test_automated_driver_refuses_calibration() -> None:
    out = run_py(str(SUITE / "automated.py"), "null", "--site", SITE, "--loops", "0")
    assert out.returncode == 2 and "--loops N >= 1" in out.stderr


# --- wheelhouse script and config ----------------------------------------------------------------


def test_make_wheelhouse_script_parses_and_needs_a_dir() -> None:
    script = ROOT / "scripts" / "make-wheelhouse.sh"
    assert subprocess.run(["sh", "-n", str(script)]).returncode == 0
    out = subprocess.run(["sh", str(script)], capture_output=True, text=True)
    assert out.returncode == 2 and "usage" in out.stderr
    text = script.read_text()
    assert "pyperf==$PYPERF_VERSION" in text and "--target" in text and "--no-index" in text


def test_suite_config_schema() -> None:
    config = tomllib.loads(CONFIG.read_text())
    suite = config["suite"]
    assert suite["schema"] == 1
    for key in ("processes", "values", "canary_n"):
        assert isinstance(suite[key], int) and suite[key] >= 1
    assert isinstance(suite["warmups"], int) and suite["warmups"] >= 0
    assert set(suite["canaries"]) <= set(C.KERNELS)
    for name, spec in config["workloads"].items():
        assert isinstance(spec["loops"], int) and spec["loops"] >= 1, name
        assert spec["description"]
    from pystats_harness.measure.suiteconfig import kind_of, load_suite

    loaded = load_suite(CONFIG)
    for rule in config["tolerances"]["override"]:
        assert rule["match"] and rule["reason"] and (rule.get("ignore") or "rel" in rule)
    # the counters the measured automated/manual comparison found state-dependent have a measured rule;
    # only the type cache's collisions (ASLR) are left out
    for name in ("objects.allocations_from_freelist", "gc.0.collections", "opcode.RESUME_CHECK.specialization.miss"):
        found = loaded.leak_rule(name)
        assert found is not None and not found[1].ignore and found[1].measured, name
    assert loaded.leak_ignored("objects.method_cache_collisions")
    assert loaded.leak_rule("opcode.LOAD_ATTR.execution_count") is None
    resume = loaded.leak_rule("opcode.RESUME.execution_count")  # 3.15: the sum over RESUME's forms, exactly
    assert resume is not None and resume[1].forms and not resume[1].abs and not resume[1].rel
    assert loaded.leak_rule("opcode.RESUME.specialization.deferred") is None
    assert loaded.leak_rule("objects.interpreter_increfs") is None  # measured equal: exact
    assert loaded.tolerance_for("objects.method_cache_hits").ignore
    assert loaded.tolerance_for("pair.LOAD_FAST.LOAD_ATTR") == loaded.tolerance_for("opcode.X.execution_count")
    assert kind_of("opcode.LOAD_ATTR.specialization.failure_kinds.kind_3") == "failure_kind"
    assert kind_of("opcode.LOAD_ATTR.specialization.hit") == "specialization"


def key_matches(key: str, pattern: str) -> bool:
    """suite.toml patterns: only ``*`` and ``?`` are wildcards (``[`` is literal)."""
    return fnmatch.fnmatchcase(key, pattern.replace("[", "[[]"))


def test_leak_rule_over_an_instructions_forms() -> None:
    """3.15: a RESUME_CHECK miss makes the next execution a RESUME; the rule compares the sum over the
    forms in every place of the name, so a split that moves one execution passes and a lost one fails."""
    from pystats_harness.measure.leakrules import compare
    from pystats_harness.measure.suiteconfig import load_suite
    from pystats_harness.stats.exact import Rate

    suite = load_suite(CONFIG)
    a = {"opcode.RESUME.execution_count": 9, "opcode.RESUME_CHECK.execution_count": 72961}
    a |= {"pair.RESUME.RESUME_CHECK": 4, "pair.RESUME_CHECK.RESUME_CHECK": 10, "pair.CACHE.RESUME": 4}
    b = {"opcode.RESUME.execution_count": 8, "opcode.RESUME_CHECK.execution_count": 72962}
    b |= {"pair.RESUME.RESUME": 1, "pair.RESUME_CHECK.RESUME_CHECK": 13, "pair.CACHE.RESUME": 3}
    b |= {"pair.CACHE.RESUME_CHECK_JIT": 1}
    for name in ("opcode.RESUME.execution_count", "opcode.RESUME_CHECK.execution_count", "pair.CACHE.RESUME"):
        c = compare(suite, name, Rate(a), Rate(b))
        assert c.held and c.rule and c.compared[0] == c.compared[1], name
    assert compare(suite, "pair.RESUME_CHECK.RESUME_CHECK", Rate(a), Rate(b)).held  # 14 both: four combinations
    lost = dict(b, **{"opcode.RESUME_CHECK.execution_count": 72961})
    assert not compare(suite, "opcode.RESUME.execution_count", Rate(a), Rate(lost)).held
