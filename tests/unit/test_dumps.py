from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pystats_harness.errors import StatsParseError
from pystats_harness.stats.dumps import _Accumulator, parse_file, parse_files, parse_text
from pystats_harness.stats.keys import KINDS, classify

DATA = Path(__file__).resolve().parents[1] / "data" / "dumps"


def nonblank(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.strip(" \t\r"))


def reference(text: str, lenient: bool) -> tuple[dict[str, int], int, int]:
    """The line-by-line slow path alone, as the reference the fast path must agree with."""
    acc = _Accumulator(lenient)
    acc._add_slow(text.encode("utf-8", "surrogateescape"), "<ref>")
    result = acc.result(("<ref>",))
    return dict(result.raw), result.counted_lines, len(result.warnings)


# --- golden dumps ---------------------------------------------------------------------------------


def test_golden_311_numeric_dump() -> None:
    [path] = sorted((DATA / "3.11.2" / "run1").glob("*.txt"))
    result = parse_file(path)
    assert result.counted_lines == nonblank(path.read_text()) == 1432
    assert result.warnings == () and result.unknown == ()
    kinds = {s.kind for s in result.stats}
    assert kinds == {"opcode", "specializable", "specialization", "failure_kind", "pair", "call", "object"}
    assert result.raw["opcode[93].specializable"] == 1  # FOR_ITER is always marked in 3.11
    assert classify("opcode[25].specialization.failure_kinds[12]").parts == ("25", "12")


def test_golden_313_named_dumps_and_whole_process() -> None:
    paths = sorted((DATA / "3.13.5" / "run1").glob("*.txt"))
    result = parse_files(paths)
    assert result.counted_lines == sum(nonblank(p.read_text()) for p in paths)
    assert result.sources == tuple(map(str, paths)) and result.unknown == ()
    full = gzip.decompress((DATA / "3.13.5" / "full-process.txt.gz").read_bytes())
    whole = parse_text(full, "full")
    assert whole.counted_lines == 1510 and whole.unknown == ()
    kinds = {s.kind for s in whole.stats}
    assert {"gc", "rare_event", "call", "object", "pair"} <= kinds
    assert whole.raw["GC[0] collections"] >= 1


def test_golden_313_stderr_form() -> None:
    text = (DATA / "3.13.5" / "stderr.txt").read_text()
    result = parse_text(text, "<stderr>", lenient=True)
    assert result.counted_lines == nonblank(text) and result.warnings == ()
    mixed = "Traceback (most recent call last):\n" + text + "ValueError: boom\n\n"
    noisy = parse_text(mixed, "<stderr>", lenient=True)
    assert noisy.raw == result.raw
    assert [w.lineno for w in noisy.warnings] == [1, nonblank(text) + 2]


# --- line formats of every generation ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind", "parts"),
    [
        ("opcode[157].pair_count[145] : 3", "pair", ("157", "145")),
        ("    opcode[25].specialization.failure_kinds[12] : 8", "failure_kind", ("25", "12")),
        ("opcode[93].specializable : 1", "specializable", ("93",)),
        ("    opcode[1].execution_count : 1262", "opcode", ("1", "execution_count")),
        ("    opcode[LOAD_ATTR].specialization.hit : 5", "specialization", ("LOAD_ATTR", "hit")),
        ("opcode[LOAD_FAST].pair_count[LOAD_ATTR] : 5", "pair", ("LOAD_FAST", "LOAD_ATTR")),
        ("Calls to PyEval_EvalDefault: 694", "call", ("to_pyeval_evaldefault",)),
        ("Frames pushed: 1822", "call", ("frames_pushed",)),
        ("Calls via PyEval_EvalFrame[3] : 18", "call", ("via_pyeval_evalframe", "3")),
        ("Object allocations: 18230", "object", ("allocations",)),
        ("Object materialize dict (on request): 0", "object", ("materialize_dict_on_request",)),
        ("Object method cache dunder hits: 9", "object", ("method_cache_dunder_hits",)),
        ("Object interpreter mortal increfs: 9", "object", ("interpreter_mortal_increfs",)),
        ("GC[0] collections: 2", "gc", ("0", "collections")),
        ("GC[2] objects not reachable from roots: 7", "gc", ("2", "objects_not_reachable_from_roots")),
        ("Rare event (set_class): 0", "rare_event", ("set_class",)),
        ("Optimization attempts: 4", "optimizer", ("attempts",)),
        ("Optimizer remove globals builtins changed: 1", "optimizer", ("remove_globals_builtins_changed",)),
        ("Executors invalidated: 2", "optimizer", ("executors_invalidated",)),
        ("Trace length[16]: 5", "optimizer", ("histogram", "trace_length", "16")),
        ("Trace total memory size[1024]: 5", "optimizer", ("histogram", "trace_total_memory_size", "1024")),
        ("JIT code size: 4096", "optimizer", ("jit_code_size",)),
        ("unsupported_opcode[WITH_EXCEPT_START].count : 3", "optimizer", ("unsupported_opcode", "WITH_EXCEPT_START")),
        ("error_in_opcode[_CHECK_VALIDITY].count : 3", "optimizer", ("error_in_opcode", "_CHECK_VALIDITY")),
        ("uops[_LOAD_FAST].execution_count : 10", "uop", ("_LOAD_FAST", "execution_count")),
        ("uops[LOAD_FAST].specialization.miss : 1", "uop", ("_LOAD_FAST", "specialization.miss")),
        ("uop[_A].pair_count[_B] : 10", "uop_pair", ("_A", "_B")),
        ("Mutex sleeps (mutex_sleeps): 3", "free_threading", ("mutex_sleeps",)),
        ("    load_attr.hit : 3", "other", ("load_attr.hit",)),
        ("Something new: 3", "other", ("Something new",)),
        ("Object (): 3", "other", ("Object ()",)),
    ],
)
def test_every_generation_line_format(line: str, kind: str, parts: tuple[str, ...]) -> None:
    assert kind in KINDS
    result = parse_text(line + "\n")
    [stat] = result.stats
    assert (stat.kind, stat.parts) == (kind, parts)
    assert result.unknown == ((stat.raw,) if kind == "other" else ())


def test_separators_indentation_crlf_and_duplicates_are_summed() -> None:
    text = "a : 1\n  a: 2\r\n\ta  :3  \nb:4"
    assert dict(parse_text(text).raw) == {"a": 6, "b": 4}


def test_malformed_line_names_file_and_line() -> None:
    text = "a : 1\n\nnot a counter\nb : x\n"
    with pytest.raises(StatsParseError, match=r"dump\.txt:3: malformed stats line 'not a counter'"):
        parse_text(text, "dump.txt")
    lenient = parse_text(text, "dump.txt", lenient=True)
    assert dict(lenient.raw) == {"a": 1}
    assert [(w.lineno, w.reason) for w in lenient.warnings] == [
        (3, "malformed line skipped"),
        (4, "malformed line skipped"),
    ]
    assert "dump.txt:3" in str(lenient.warnings[0])


@pytest.mark.parametrize(
    "line", [": 5", "a : -1", "a : +1", "a : 1_000", "a : 1.5", "a :: 1", "a : 1 : 2", "a : ", "a : ٣"]
)
def test_lines_outside_the_grammar_are_errors(line: str) -> None:
    with pytest.raises(StatsParseError):
        parse_text(f"ok : 1\n{line}\nok : 2\n")


def test_header_line_is_tolerated_with_a_warning() -> None:
    result = parse_text("Specialization stats:\na : 1\n")
    assert dict(result.raw) == {"a": 1} and result.warnings[0].reason == "header line ignored"


def test_unreadable_file_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(StatsParseError, match="cannot read stats dump"):
        parse_file(tmp_path / "missing.txt")


def test_many_files_same_and_different_key_sets(tmp_path: Path) -> None:
    expected: dict[str, int] = {}
    paths = []
    for i in range(150):  # > batch size, > skeleton cache: every accumulation path is used
        keys = ["x", "y"] if i % 2 else [f"k{i % 90}", "x", f"opcode[{i}].execution_count"]
        lines = [f"{key} : {i + j}" for j, key in enumerate(keys)]
        for j, key in enumerate(keys):
            expected[key] = expected.get(key, 0) + i + j
        path = tmp_path / f"{i:03d}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    result = parse_files(paths)
    assert dict(result.raw) == expected
    assert result.counted_lines == sum(2 if i % 2 else 3 for i in range(150))


# --- robustness ---------------------------------------------------------------------------------------

line_text = st.text(alphabet=st.sampled_from(list("ab :[]09\t\r\n_.-+x\x0bé")), max_size=200)
near_valid = st.lists(
    st.sampled_from(
        [
            "a:1",
            "  b : 23",
            "x y: 7 ",
            "opcode[1].execution_count : 0\r",
            "1:2",
            "x:1:y",
            "3",
            "",
            "  ",
            ":5",
            "a: ",
            "Specialization stats:",
            "a : 1 2",
        ]
    ),
    max_size=10,
).flatmap(lambda lines: st.sampled_from(["\n".join(lines), "\n".join(lines) + "\n"]))


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(text=st.one_of(near_valid, near_valid, line_text, st.text(max_size=200)), lenient=st.booleans())
@example("x:1:y\n3\n", False)  # one line with two ':' and one with none: counts match, lines do not
@example("x:1:y\n1:2\n3", True)
def test_never_crashes_and_never_loses_a_line(text: str, lenient: bool) -> None:
    try:
        result = parse_text(text, lenient=lenient)
    except StatsParseError:
        assert not lenient
        with pytest.raises(StatsParseError):
            reference(text, lenient)
        return
    assert result.counted_lines + len(result.warnings) == nonblank(text)
    assert (dict(result.raw), result.counted_lines, len(result.warnings)) == reference(text, lenient)


key_text = st.text(alphabet=st.sampled_from(list("abcXYZ_[]().0123 ")), min_size=1, max_size=12).filter(
    lambda k: k.strip(" \t")
)


@settings(max_examples=200, deadline=None)
@given(
    entries=st.lists(
        st.tuples(
            key_text,
            st.integers(0, 2**64 - 1),
            st.sampled_from([" : ", ": ", ":"]),
            st.sampled_from(["", "    ", "\t"]),
        ),
        max_size=30,
    )
)
def test_well_formed_dumps_sum_exactly(entries: list[tuple[str, int, str, str]]) -> None:
    text = "".join(f"{indent}{key}{sep}{value}\n" for key, value, sep, indent in entries)
    expected: dict[str, int] = {}
    negative: dict[str, int] = {}
    for key, value, _, _ in entries:
        name = key.strip(" \t")
        expected[name] = expected.get(name, 0) + (value - 2**64 if value >= 2**63 else value)
        negative[name] = negative.get(name, 0) or int(value >= 2**63)
    result = parse_text(text)
    assert dict(result.raw) == expected and result.counted_lines == len(entries)
    assert dict(result.negative) == {name: 1 for name, wrapped in negative.items() if wrapped}


def test_misaligned_file_with_a_cached_key_sequence_is_still_an_error(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("x : 1\ny : 2\n")
    bad.write_text("x : 1 : y\n2\n")  # split naively, this has the same keys and values as good.txt
    with pytest.raises(StatsParseError, match=r"bad\.txt:1:"):
        parse_files([good, bad])


# --- counters that wrapped below zero -------------------------------------------------------------

#: Shaped like main 84b7e9e3fa's dump of `classes`: RESUME's deferred count was decremented 183 times
#: (UPDATE_MISS_STATS) and never incremented, so the uint64 printed 2**64 - 183.
WRAPPED_DUMP = """\
opcode[RESUME].specialization.deferred : 18446744073709551433
opcode[RESUME].specialization.miss : 190
opcode[RESUME].execution_count : 4021
opcode[LOAD_ATTR].specialization.deferred : 18446744073709551615
"""


@pytest.mark.parametrize("malformed", [False, True], ids=["fast path", "slow path (a skipped line)"])
def test_wrapped_uint64_is_read_as_signed(malformed: bool) -> None:
    text = WRAPPED_DUMP + ("x:1:y\n" if malformed else "")
    result = parse_text(text, lenient=True)
    assert dict(result.raw) == {
        "opcode[RESUME].specialization.deferred": -183,
        "opcode[RESUME].specialization.miss": 190,
        "opcode[RESUME].execution_count": 4021,
        "opcode[LOAD_ATTR].specialization.deferred": -1,
    }
    assert dict(result.negative) == {
        "opcode[LOAD_ATTR].specialization.deferred": 1,
        "opcode[RESUME].specialization.deferred": 1,
    }
    assert parse_text("a : 9223372036854775807\n").raw == {"a": 2**63 - 1}  # the largest non-negative
    assert parse_text("a : 9223372036854775808\n").raw == {"a": -(2**63)}


@pytest.mark.parametrize("count", [3, 40, 300], ids=["few files", "batched columns", "parallel workers"])
def test_wrapped_values_sum_exactly_over_files(tmp_path: Path, count: int) -> None:
    paths = []
    for i in range(count):  # every second file wrapped: -(i + 1); the others count 2**60 + i
        value = 2**64 - (i + 1) if i % 2 else 2**60 + i
        path = tmp_path / f"{i:03d}.txt"
        path.write_text(f"opcode[RESUME].specialization.deferred : {value}\nopcode[NOP].execution_count : {2**60}\n")
        paths.append(path)
    result = parse_files(paths, workers=2)
    expected = sum(-(i + 1) if i % 2 else 2**60 + i for i in range(count))
    assert result.raw["opcode[RESUME].specialization.deferred"] == expected
    assert result.raw["opcode[NOP].execution_count"] == count * 2**60  # beyond 2**53: exact
    assert dict(result.negative) == {"opcode[RESUME].specialization.deferred": count // 2}


def test_value_of_2_to_the_64_is_not_a_counter() -> None:
    with pytest.raises(StatsParseError, match=r"<text>:2: malformed stats line .*below 2\*\*64"):
        parse_text("a : 1\nb : 18446744073709551616\n")
    assert parse_text("a : 1\nb : 18446744073709551616\n", lenient=True).raw == {"a": 1}
