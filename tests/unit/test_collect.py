"""collect's pure parts: the suite's MANIFEST and metafiles, --benchmarks, loops files, pyperf
command lines, trust checks and verdicts, the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness.collect import compare as suite_compare
from pystats_harness.collect import exactness, one, report, trust, workers
from pystats_harness.collect import loops as loops_file
from pystats_harness.errors import ConfigError
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.pyperformance import runs
from pystats_harness.pyperformance.benchmarks import Timing, read_suite, select
from pystats_harness.stats.collection import Collection


def test_suite_reads_manifest_metafiles_and_unlisted_directories(data_dir: Path) -> None:
    suite = read_suite(data_dir)
    assert list(suite.benchmarks) == ["nbody", "pickle", "pickle_pure_python", "python_startup", "async_tree", "yaml"]
    variant = suite.benchmarks["pickle_pure_python"]
    assert (variant.directory, variant.extra_opts, variant.has_requirements) == (
        "bm_pickle",
        ("--pure-python", "pickle"),
        True,
    )
    assert variant.tags == ("serialize",)  # inherited from the base directory's pyproject
    assert suite.benchmarks["python_startup"].timing is Timing.COMMAND
    assert suite.benchmarks["async_tree"].timing is Timing.ASYNC
    assert not suite.benchmarks["async_tree"].directly_callable
    assert suite.benchmarks["yaml"].timing is Timing.FUNC and suite.benchmarks["yaml"].directly_callable
    assert suite.groups["unlisted"] == ("yaml",)
    assert "yaml" in suite.groups["all"] and "yaml" not in suite.groups["default"]
    assert suite.groups["math"] == ("nbody",)
    assert len(suite.directories) == 5


def test_selection_names_groups_and_removals(data_dir: Path) -> None:
    suite = read_suite(data_dir)
    names = lambda spec: [b.name for b in select(suite, spec)]  # noqa: E731
    assert names("default") == ["nbody", "pickle", "pickle_pure_python", "python_startup", "async_tree"]
    assert names("all")[-1] == "yaml"
    assert names("-pickle,-startup") == ["nbody", "pickle_pure_python", "async_tree"]  # removals start from default
    assert names("serialize,nbody") == ["nbody", "pickle", "pickle_pure_python"]  # MANIFEST order
    with pytest.raises(ConfigError, match=r"unknown benchmark nbdy .*known benchmarks: .*nbody"):
        select(suite, "nbdy")
    with pytest.raises(ConfigError, match="selects no benchmark"):
        select(suite, "nbody,-nbody")
    with pytest.raises(ConfigError, match="empty"):
        select(suite, " , ")


def test_missing_manifest_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no pyperformance MANIFEST"):
        read_suite(tmp_path)


def test_loops_files_round_trip_and_pyperf_results(tmp_path: Path) -> None:
    path = tmp_path / "loops.json"
    loops_file.write(path, {"nbody": 4, "go": 2}, "1.14.0", ["hg_startup", "go"])
    assert loops_file.read(path) == {"go": 2, "nbody": 4, "hg_startup": 0}  # not run there: calibrate here
    loops_file.check_covers(loops_file.read(path), ["nbody", "hg_startup"], path)
    pyperf = {
        "metadata": {"loops": 8},
        "benchmarks": [{"metadata": {"name": "nbody"}}, {"metadata": {"name": "go", "loops": 3}}],
    }
    (tmp_path / "pyperf.json").write_text(json.dumps(pyperf))
    assert loops_file.read(tmp_path / "pyperf.json") == {"nbody": 8, "go": 3}
    with pytest.raises(ConfigError, match=r"has no loops for richards \(it was made for: go, nbody\)"):
        loops_file.check_covers({"go": 2, "nbody": 4}, ["nbody", "richards"], path)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="not JSON"):
        loops_file.read(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text("[1]")
    with pytest.raises(ConfigError, match=r"neither a collect loops\.json"):
        loops_file.read(tmp_path / "other.json")
    with pytest.raises(ConfigError, match="cannot read loops file"):
        loops_file.read(tmp_path / "missing.json")


def test_pyperf_command_lines(data_dir: Path) -> None:
    bench = read_suite(data_dir).benchmarks["pickle_pure_python"]
    args = runs.pyperf_args(runs.script_of(bench), loops=16, processes=3, hook=True)
    assert args[:4] == ("-u", "/bench/bm_pickle/run_benchmark.py", "--pure-python", "pickle")
    for pair in (("--loops", "16"), ("--warmups", "0"), ("--processes", "3"), ("--values", "1"), ("--hook", "pystats")):
        assert args[args.index(pair[0]) + 1] == pair[1]
    assert "PYTHONHASHSEED" in args[args.index("--inherit-environ") + 1]
    assert "PYTHON_UOPS" not in args[args.index("--inherit-environ") + 1]
    # a tier-2 build of the 3.13 development line: its switch variable reaches pyperf's workers
    switched = runs.pyperf_args(runs.script_of(bench), loops=16, processes=3, hook=True, switch_env=("PYTHON_UOPS",))
    assert switched[switched.index("--inherit-environ") + 1].split(",")[-1] == "PYTHON_UOPS"
    calibrate = runs.pyperf_args(runs.script_of(bench), loops=None, processes=3, hook=False)
    assert "--loops" not in calibrate and "--hook" not in calibrate
    assert runs.manual_args(runs.script_of(bench), 16)[1:] == (
        "/suite/pyperformance_manual.py",
        "16",
        "/bench/bm_pickle/run_benchmark.py",
        "--pure-python",
        "pickle",
    )
    doc = {
        "metadata": {"loops": 8},
        "benchmarks": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b", "loops": 2}}],
    }
    assert runs.calibrated_loops(doc) == 2
    assert runs.timed_names(doc) == ("a", "b")


def _c(**counts: int) -> dict[str, int]:
    return {f"opcode.{k}.execution_count": v for k, v in counts.items()}


def _rules(allowance: exactness.Allowance | None = None) -> exactness.Rules:
    return exactness.Rules(load_suite(), allowance)


def test_dumps_check_says_why_a_worker_dumped_nothing() -> None:
    assert trust.check_dumps(4, 4).status is exactness.Status.PASS
    assert "parent" in trust.check_dumps(5, 4).detail
    assert "dumped nothing" in trust.check_dumps(3, 4).detail
    prefix = {"fingerprint": {"on-work-off": {"ok": False}, "plain": {"ok": False}}}
    why = workers.why_no_dump(FakeBuild(prefix))
    assert "does not dump stats at exit while collection is off" in why and "start-up" in why
    assert workers.why_no_dump(FakeBuild({"fingerprint": {"on-work-off": {"ok": True}}})) == ""
    missing = trust.check_dumps(0, 2, why)
    assert missing.status is exactness.Status.FAIL and "GH-100144" in missing.detail


class FakeBuild:
    def __init__(self, manifest: dict[str, object]) -> None:
        self._manifest = manifest

    def manifest(self) -> dict[str, object]:
        return self._manifest


def test_agreement_is_exact_without_a_declared_allowance() -> None:
    rules = _rules()
    same = trust.check_agreement([[_c(LOAD_FAST=10), _c(LOAD_FAST=10)]], rules)
    assert (same.status, same.detail) == (exactness.Status.PASS, "workers agree exactly")
    off_by_one = trust.check_agreement([[_c(LOAD_FAST=1000), _c(LOAD_FAST=1001)]], rules)
    assert off_by_one.status is exactness.Status.FAIL and "worker 2 counts more" in off_by_one.detail
    assert off_by_one.findings[0]["counter"] == "opcode.LOAD_FAST.execution_count"
    # the issue's case: a small counter 90x apart in a 1e9-instruction benchmark is not "noise"
    big = 1_000_000_000
    a = {**_c(LOAD_FAST=big, CALL=1000), "opcode.LOAD_ATTR.specialization.miss": 0}
    b = {**_c(LOAD_FAST=big, CALL=90_000), "opcode.LOAD_ATTR.specialization.miss": 99_000}
    far = trust.check_agreement([[a, b]], rules)
    assert far.status is exactness.Status.FAIL
    assert {f["counter"] for f in far.findings} == {
        "opcode.CALL.execution_count",
        "opcode.LOAD_ATTR.specialization.miss",
    }
    objects = trust.check_agreement([[{"objects.allocations": 100}, {"objects.allocations": 103}]], rules)
    assert (objects.status, objects.detail) == (
        exactness.Status.PASS,
        "workers agree (1 counter(s) within rule leak_check.rule[objects.allocations] "
        "(largest: objects.allocations 100 vs 103))",
    )
    # gc once passed whatever it said: 1 collection against 900 now fails
    gc = trust.check_agreement([[{**_c(A=5), "gc.0.collections": 1}, {**_c(A=5), "gc.0.collections": 900}]], rules)
    assert gc.status is exactness.Status.FAIL and "gc.0.collections 1 vs 900" in gc.detail
    one_worker = trust.check_agreement([[_c(A=1)]], rules)
    assert (
        one_worker.status is exactness.Status.NOT_CHECKED
        and one_worker.detail == "not checked: one worker per timed function (--processes 1)"
    )


def test_agreement_within_a_declared_allowance_is_approximate_and_says_how_far() -> None:
    rules = _rules(exactness.Allowance(0.05, "the event loop's work varies", 2))
    near = trust.check_agreement([[_c(LOAD_FAST=1000, X=500), _c(LOAD_FAST=1031, X=500)]], rules)
    assert near.status is exactness.Status.APPROXIMATE
    assert "max 3.0% in opcode.LOAD_FAST.execution_count" in near.detail and "event loop" in near.detail
    far = trust.check_agreement([[_c(LOAD_FAST=1000), _c(LOAD_FAST=1100)]], rules)
    assert far.status is exactness.Status.FAIL
    small = trust.check_agreement([[_c(A=1000, B=0), _c(A=1000, B=2)]], rules)  # within abs = 2
    assert small.status is exactness.Status.APPROXIMATE
    ninety = trust.check_agreement([[_c(A=1000, B=1000), _c(A=1000, B=90_000)]], rules)
    assert ninety.status is exactness.Status.FAIL


def test_declared_allowances_are_read_and_checked(tmp_path: Path) -> None:
    declared = exactness.load_declared()
    assert all(0 < a.rel < 1 and a.reason for a in declared.values())
    bad = tmp_path / "collect.toml"
    bad.write_text("[variable.x]\nrel = 0.1\n")
    with pytest.raises(ConfigError, match=r"\[variable.x\] needs rel and reason"):
        exactness.load_declared(bad)
    bad.write_text('[variable.x]\nrel = 3\nreason = "r"\n')
    with pytest.raises(ConfigError, match="rel must be between 0 and 1"):
        exactness.load_declared(bad)


def test_empty_and_leakage_checks() -> None:
    rules = _rules()
    assert trust.check_empty({}, 0).status is exactness.Status.FAIL
    assert "all-zero" in trust.check_empty(_c(A=0), 2).detail
    exact = trust.check_leakage(trust.LeakCounts(_c(A=2000), _c(A=2000), 2), "", rules)
    assert exact.status is exactness.Status.PASS and "overhead from the null benchmark" in exact.detail
    # 235 instructions per loop more on the automated path: caught, counter by counter
    leak = trust.check_leakage(trust.LeakCounts(_c(A=2000, B=235), _c(A=2000), 2), "", rules)
    assert leak.status is exactness.Status.FAIL and "opcode.B.execution_count 235 vs 0" in leak.detail
    # pyperf's own code in the null benchmark ran with another history than in the benchmark's worker:
    # differences within the machinery bound (configs/collect.toml shares of the null's instructions)
    # are said, counter by counter and with how much of the bound they used, as bounded
    bound = exactness.Bound("machinery.func", 10, 4, 100)
    history = trust.LeakCounts(
        {**_c(A=2000), "opcode.A.specialization.miss": 8},
        {**_c(A=2002), "opcode.A.specialization.miss": 0},
        2,
        100,
        bound=bound,
    )
    bounded = trust.check_leakage(history, "", rules)
    assert bounded.status is exactness.Status.BOUNDED
    assert "within rule machinery.func" in bounded.detail
    assert "one counter used 8 of 10, the instructions executed 2 of 4 (shares of the null's 100 instructions)" in (
        bounded.detail
    )
    assert "max in opcode.A.specialization.miss (8 vs 0; 2 counter(s) differ)" in bounded.detail
    assert {f.get("within") for f in bounded.findings} == {"machinery", None}
    assert {"rule": "machinery.func", "counter": [8, 10], "executed": [2, 4], "null": 100} in bounded.findings
    assert trust.verdict([bounded]) is trust.Verdict.PARTIAL  # the other checks did not run
    spread = trust.LeakCounts(_c(A=2003, B=2003), _c(A=2000, B=2000), 2, 100, bound=bound)  # each within, not both
    spread_out = trust.check_leakage(spread, "", rules)
    assert spread_out.status is exactness.Status.FAIL and "instructions executed 4,006 vs 4,000" in spread_out.detail
    # a leak of 3,000 instructions in a benchmark whose null executes 3,080 (base64's 13 bench_time_func),
    # by configs/collect.toml's bound: beyond it in one counter, and spread over many
    real = exactness.bound_for(["time_func"] * 13, 3_080, exactness.load_machinery())
    assert (real.rule, real.counter, real.executed) == ("machinery.time_func", 924, 770)
    one = trust.LeakCounts(_c(A=1_000_000, B=3_000), _c(A=1_000_000), 2, 3_080, bound=real)
    spread3000 = {f"OP{i}": 1_000 + (600 if i < 5 else 0) for i in range(10)}
    many = trust.LeakCounts(_c(**spread3000), _c(**{k: 1_000 for k in spread3000}), 2, 3_080, bound=real)
    for leak in (one, many):
        assert trust.check_leakage(leak, "", rules).status is exactness.Status.FAIL
    startup = trust.LeakCounts(_c(A=2000, IMPORT_NAME=150), _c(A=2000), 2, 100, bound=bound)
    assert trust.check_leakage(startup, "", rules).status is exactness.Status.FAIL  # more than the machinery
    unbounded = trust.LeakCounts({**_c(A=2000), "opcode.A.specialization.miss": 1}, _c(A=2000), 2, 100)
    assert trust.check_leakage(unbounded, "", rules).status is exactness.Status.FAIL  # no bound: exact
    within = {"objects.allocations": 3, "gc.0.collections": 1, "objects.method_cache_collisions": 70}
    assert trust.check_leakage(trust.LeakCounts(within, {}, 2), "", rules).status is exactness.Status.PASS
    allocated = {"objects.allocations": 10_000}  # a leak of allocations alone
    assert trust.check_leakage(trust.LeakCounts(allocated, {}, 2), "", rules).status is exactness.Status.FAIL
    why = trust.check_leakage(None, "not checked: --no-manual", rules)
    assert (why.status, why.detail) == (exactness.Status.NOT_CHECKED, "not checked: --no-manual")


def test_verdicts(data_dir: Path) -> None:
    suite = read_suite(data_dir)
    wrapper = trust.check_wrapper(suite.benchmarks["python_startup"])
    assert "measures the wrapper" in wrapper.detail
    checks = {c: trust.CheckResult(c, exactness.Status.PASS, "") for c in trust.Check}

    def with_(**status: exactness.Status) -> list[trust.CheckResult]:
        return [checks[c] if c.value not in status else trust.CheckResult(c, status[c.value], "") for c in trust.Check]

    assert trust.verdict(list(checks.values())) is trust.Verdict.TRUSTED
    assert trust.verdict(with_(agreement=exactness.Status.APPROXIMATE)) is trust.Verdict.APPROXIMATE
    # two words for two states: within the machinery bound is not within a declared allowance
    assert trust.verdict(with_(leakage=exactness.Status.BOUNDED)) is trust.Verdict.BOUNDED
    both = with_(agreement=exactness.Status.APPROXIMATE, leakage=exactness.Status.BOUNDED)
    assert trust.verdict(both) is trust.Verdict.APPROXIMATE
    assert trust.verdict(with_(leakage=exactness.Status.NOT_CHECKED)) is trust.Verdict.PARTIAL
    assert trust.verdict(list(checks.values())[:-1]) is trust.Verdict.PARTIAL  # a check missing is not a pass
    fail_and_unchecked = with_(dumps=exactness.Status.FAIL, leakage=exactness.Status.NOT_CHECKED)
    assert trust.verdict(fail_and_unchecked) is trust.Verdict.UNTRUSTED
    assert trust.verdict([*with_(dumps=exactness.Status.FAIL)[:2], wrapper]) is trust.Verdict.UNRELIABLE


def test_null_benchmark_shapes_and_net_arithmetic() -> None:
    from pystats_harness.collect import overhead
    from pystats_harness.suite import pyperformance_null as null

    assert null.shapes("time_func:0,func:2,async_func:1") == [("time_func", 0), ("func", 2), ("async_func", 1)]
    with pytest.raises(SystemExit):
        null.shapes("command:0")
    assert null.null_function("time_func", 2)(5, "a", "b") == 1e-9
    assert null.null_function("func", 0)() is None
    big = 2**62 + 1  # beyond a float's exactness
    assert overhead.subtract({"a": big, "b": 3}, {"a": big - 1, "c": 2}) == {"a": 1, "b": 3, "c": -2}


def test_report_and_exit_codes(data_dir: Path) -> None:
    suite = read_suite(data_dir)
    good = one.Outcome("nbody", "bm_nbody", trust.Verdict.TRUSTED, loops=4)
    skipped = one.skipped(suite.benchmarks["pickle"], "six", "no wheel")
    assert skipped.reason == "skipped: needs six (no wheel)"
    text = report.to_markdown(
        [good, skipped],
        {"pyperformance": "1.14.0", "revision": "v3.13.5", "sha": "ab" * 20, "python_version": "3.13.5"},
    )
    assert "1 of 2 benchmarks ran (1 benchmark directories): 1 trusted, 1 skipped" in text
    assert "trusted: every check ran and held, exactly but for the suite's named rules" in text
    assert "| `pickle` | skipped |" in text
    assert report.exit_error([good, skipped]) is None
    untrusted = one.Outcome("go", "bm_go", trust.Verdict.UNTRUSTED)
    failed = one.Outcome("x", "bm_x", trust.Verdict.FAILED, reason="boom")
    assert report.exit_error([good, untrusted]).exit_code == 26  # type: ignore[union-attr]
    assert report.exit_error([untrusted, failed]).exit_code == 25  # type: ignore[union-attr]
    unchecked = trust.CheckResult(trust.Check.LEAKAGE, exactness.Status.NOT_CHECKED, "not checked: --no-manual")
    partial = one.Outcome("nb", "bm_nb", trust.Verdict.PARTIAL, checks=(unchecked,))
    assert report.exit_error([good, partial]) is None
    strict = report.exit_error([good, partial], strict=True)
    assert strict is not None and strict.exit_code == 27 and "nb (leakage)" in str(strict)
    assert report.detail(partial) == "leakage: not checked: --no-manual"
    assert "0 trusted" not in report.headline([good, partial]) and "1 partial" in report.headline([good, partial])


def _collection(loops: int, **counters: float) -> Collection:
    return Collection({"loops": loops, "revision": "r"}, dict(counters))


def test_suite_compare_flags_ratio_moves_and_specializing_families() -> None:
    base = _collection(
        2,
        **{
            "opcode.LOAD_ATTR.execution_count": 1000,
            "family.LOAD_ATTR.execution_count": 1000,
            "family.LOAD_ATTR.specialization.hit": 800,
            "family.LOAD_ATTR.specialization.miss": 200,
            "family.LOAD_ATTR.specialization.failure_kinds.property": 100,
            "family.PRECALL.execution_count": 500,
            "family.PRECALL.specialization.hit": 500,
        },
    )
    head = _collection(
        2,
        **{
            "opcode.LOAD_ATTR.execution_count": 1000,
            "family.LOAD_ATTR.execution_count": 1000,
            "family.LOAD_ATTR.specialization.hit": 950,
            "family.LOAD_ATTR.specialization.miss": 50,
            "family.LOAD_ATTR.specialization.failure_kinds.property": 10,
        },
    )
    changes = {
        (c.family, c.metric): c for c in suite_compare.compare_benchmark("b", base, head, suite_compare.Thresholds())
    }
    hit = changes[("LOAD_ATTR", "hit_ratio")]
    assert (hit.base, hit.head, hit.interesting) == (0.8, 0.95, True)
    assert changes[("LOAD_ATTR", "failure.property")].base == 50  # per loop
    assert changes[("LOAD_ATTR", "failure.property")].interesting
    assert changes[("PRECALL", "hit_ratio")].head is None and changes[("PRECALL", "hit_ratio")].interesting
    assert not changes[("PRECALL", "miss_ratio")].interesting  # a family gone is flagged once, by its hit ratio
    assert not changes[("", "executed")].interesting
    strict = suite_compare.Thresholds(ratio=0.5)
    assert not {(c.family, c.metric): c for c in suite_compare.compare_benchmark("b", base, head, strict)}[
        ("LOAD_ATTR", "hit_ratio")
    ].interesting


def test_suite_compare_flags_a_deferred_share_move_and_a_failure_kind_gone() -> None:
    """ea72c6fe3b (str[int]) on tomli_loads, per loop: BINARY_SUBSCR's hits over hits and misses stay ~100 %,
    but the executions that back off instead of specializing fall from 84 % to 4 %, and the ``string int``
    failures (a few thousand attempts against millions of executions) are gone."""
    common = {"opcode.BINARY_SUBSCR.execution_count": 24_881_503, "family.BINARY_SUBSCR.execution_count": 24_881_503}
    base = _collection(
        1,
        **common,
        **{
            "family.BINARY_SUBSCR.specialization.hit": 4_015_180,
            "family.BINARY_SUBSCR.specialization.miss": 10,
            "family.BINARY_SUBSCR.specialization.deferred": 20_851_000,
            "family.BINARY_SUBSCR.specialization.failure": 5_266,
            "family.BINARY_SUBSCR.specialization.failure_kinds.string_int": 4_931,
            "family.BINARY_SUBSCR.specialization.failure_kinds.out_of_range": 319,
        },
    )
    head = _collection(
        1,
        **common,
        **{
            "family.BINARY_SUBSCR.specialization.hit": 23_777_255,
            "family.BINARY_SUBSCR.specialization.miss": 71,
            "family.BINARY_SUBSCR.specialization.deferred": 1_092_000,
            "family.BINARY_SUBSCR.specialization.failure": 335,
            "family.BINARY_SUBSCR.specialization.failure_kinds.out_of_range": 319,
        },
    )
    changes = {
        (c.family, c.metric): c for c in suite_compare.compare_benchmark("b", base, head, suite_compare.Thresholds())
    }
    assert not changes[("BINARY_SUBSCR", "hit_ratio")].interesting  # ~100 % on both sides
    deferred = changes[("BINARY_SUBSCR", "deferred_share")]
    assert deferred.interesting and round(deferred.base or 0, 3) == 0.838 and round(deferred.head or 0, 3) == 0.044
    gone = changes[("BINARY_SUBSCR", "failure.string_int")]
    assert gone.interesting and (gone.base, gone.head) == (4_931, None)
    assert not changes[("BINARY_SUBSCR", "failure.out_of_range")].interesting  # unchanged
    assert ("BINARY_SUBSCR", "failures") not in changes  # the family's total is a denominator, not a metric


def test_suite_compare_needs_complete_outputs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a complete collect output"):
        suite_compare.compare_outputs(tmp_path, tmp_path)


def test_workers_are_grouped_by_function_whatever_order_their_dumps_have() -> None:
    f1, f2, f3 = _c(A=100, B=5), _c(A=7, C=900), _c(D=40_000)
    shuffled = [f2, f1, f3, f1, f3, f2]  # equal mtimes: the file names decide the order
    groups = workers.groups(shuffled, 3, 2)
    assert sorted(map(tuple, ([tuple(sorted(d.items())) for d in g] for g in groups))) == sorted(
        [(tuple(sorted(f.items())),) * 2 for f in (f1, f2, f3)]
    )
    assert workers.groups(shuffled, 2, 2) == []  # 6 dumps are not 2 functions x 2 workers


def test_collect_leakage_applies_validates_deferred_rule() -> None:
    """Where the build's source shows UPDATE_MISS_STATS decrementing ``deferred`` (measure/deferred.py),
    collect allows what the misses explain, as validate's leakage does; beyond the window, or on a build
    where the rule does not apply, the counter stays exact."""
    deferred, miss = "opcode.LOAD_ATTR.specialization.deferred", "opcode.LOAD_ATTR.specialization.miss"
    by_hand = {**_c(A=2000), deferred: 104, miss: 6}  # processes x manual(benchmark)
    parts = ({}, by_hand, {})  # automated(null), processes x manual(benchmark), processes x manual(null)

    def leakage(automated_deferred: int, rule: DeferredRule | None) -> trust.CheckResult:
        counts = trust.LeakCounts({**by_hand, deferred: automated_deferred}, dict(by_hand), 2, 0, parts)
        return trust.check_leakage(counts, "", exactness.Rules(load_suite(), deferred=rule))

    applied = DeferredRule(True, "UPDATE_MISS_STATS decrements deferred")
    within = leakage(100, applied)  # E = -4, the window [-6, 6]
    assert within.status is exactness.Status.PASS
    assert f"1 counter(s) within rule deferred (largest: {deferred} 100 vs 104)" in within.detail
    assert any(f["rule"] == "deferred" and f["a"] == 100 and f["b"] == 104 for f in within.findings)
    assert leakage(93, applied).status is exactness.Status.FAIL  # E = -11: more than 6 misses explain
    assert leakage(100, DeferredRule(False, "no decrement in the source")).status is exactness.Status.FAIL
    assert leakage(100, None).status is exactness.Status.FAIL


@pytest.mark.parametrize(
    "extra, used",
    [
        ({}, None),
        ({"objects.allocations": 3}, "within rule leak_check.rule[objects.allocations]"),
        (
            {"objects.method_cache_collisions": 70},
            "not compared (rule leak_check.rule[objects.method_cache_collisions]",
        ),
    ],
    ids=["nothing allowed", "allowed", "skipped"],
)
def test_collect_says_exactly_only_where_nothing_was_allowed_or_skipped(
    extra: dict[str, int], used: str | None
) -> None:
    base = {**_c(A=2000, B=40), "objects.allocations": 100}
    other = {**base, **{n: base.get(n, 0) + v for n, v in extra.items()}}
    agreement = trust.check_agreement([[base, other]], _rules())
    leakage = trust.check_leakage(trust.LeakCounts(other, base, 1), "", _rules())
    for result in (agreement, leakage):
        assert result.status is exactness.Status.PASS
        assert ("exactly" in result.detail) is (used is None), result.detail
        assert used is None or used in result.detail
        assert bool([f for f in result.findings if "rule" in f]) is (used is not None)
