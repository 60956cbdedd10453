from __future__ import annotations

import math
from pathlib import Path

import pytest

from pystats_harness.errors import ConfigError, MissingCounters
from pystats_harness.measure.metric import Metric, parse_metric

HIT = "opcode.LOAD_ATTR.specialization.hit"
EXE = "opcode.LOAD_ATTR.execution_count"


def test_ratio_of_two_counters() -> None:
    m = parse_metric(f"{HIT} / {EXE}")
    assert m.inputs == (EXE, HIT)
    assert m.evaluate({HIT: 3, EXE: 4, "other": 1}) == 0.75
    assert m.expression == f"{HIT} / {EXE}"
    assert str(m) == m.expression


def test_single_counter_and_family_totals() -> None:
    m = Metric.parse("family.LOAD_ATTR.execution_count")
    assert m.inputs == ("family.LOAD_ATTR.execution_count",)
    assert m.evaluate({"family.LOAD_ATTR.execution_count": 12}) == 12.0


@pytest.mark.parametrize(
    "name",
    [
        "opcode.LOAD_ATTR.specialization.failure_kinds.kind_12",
        "gc.0.collections",
        "pair.LOAD_FAST.LOAD_ATTR",
        "optimizer.histogram.trace_length.16",
        "uops._LOAD_FAST.execution_count",
        "opcode.BINARY_OP_ADD_INT.specialization.miss",
    ],
)
def test_names_with_digits_and_underscores(name: str) -> None:
    m = parse_metric(f"{name} * 2")
    assert m.inputs == (name,)
    assert m.evaluate({name: 21}) == 42.0


def test_backtick_names_for_unusual_characters() -> None:
    m = parse_metric("`other.Some raw key[3]` + calls.total")
    assert m.inputs == ("calls.total", "other.Some raw key[3]")
    assert m.evaluate({"other.Some raw key[3]": 1, "calls.total": 2}) == 3.0
    assert m.expression == "`other.Some raw key[3]` + calls.total"
    assert parse_metric(m.expression) == parse_metric(m.expression)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a - b - c", 10 - 4 - 1),
        ("a - (b - c)", 10 - (4 - 1)),
        ("a / b * c", 10 / 4 * 1),
        ("-a * b", -40),
        ("2 * -a", -20),
        ("+a", 10),
        ("a * 1e3 + 0.5", 10000.5),
        ("(a + b) / (b + c)", 14 / 5),
        ("100 * a.x / b", 100 * 7 / 4),
    ],
)
def test_arithmetic_and_precedence(text: str, expected: float) -> None:
    assert parse_metric(text).evaluate({"a": 10, "b": 4, "c": 1, "a.x": 7}) == pytest.approx(expected)


def test_canonical_expression_keeps_meaning() -> None:
    m = parse_metric("(a-(b-c))")
    again = parse_metric(m.expression)
    assert m.expression == "a - (b - c)" and again.expression == m.expression
    assert again.evaluate({"a": 1, "b": 2, "c": 3}) == m.evaluate({"a": 1, "b": 2, "c": 3}) == 2


def test_inputs_are_sorted_and_unique() -> None:
    assert parse_metric("b + a + b * a").inputs == ("a", "b")


def test_missing_counters_are_zero_with_a_note() -> None:
    ev = parse_metric("a + b").explain({"a": 5})
    assert ev.value == 5 and ev.missing == ("b",)
    assert ev.notes == ("counted as 0 (not in the stats): b",)


def test_all_counters_missing_is_an_error_naming_them() -> None:
    m = parse_metric(f"opcode.LOAD_ATR.specialization.hit / {EXE.replace('ATTR', 'ATR')}")
    with pytest.raises(MissingCounters, match=r"opcode.LOAD_ATR.execution_count") as info:
        m.evaluate({HIT: 1, EXE: 2})
    assert "did you mean" in str(info.value) and HIT in str(info.value)
    assert isinstance(info.value, ConfigError) and "\n" not in str(info.value)
    with pytest.raises(MissingCounters, match="check the names"):
        m.evaluate({})


def test_division_by_zero_is_nan_with_a_note() -> None:
    ev = parse_metric("a / b").explain({"a": 1, "b": 0})
    assert math.isnan(ev.value) and ev.notes == ("division by zero: the value is NaN",)
    assert math.isnan(parse_metric("a / (b - b)").evaluate({"a": 1, "b": 3}))
    assert parse_metric("a / b").evaluate({"a": 0, "b": 2}) == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("__import__('os').system('true')", "function calls"),
        ("abs(a)", "function calls"),
        ("a.b()", "function calls"),
        ("(a).b", "attribute access"),
        ("a[0]", "subscripts"),
        ("a < b", "comparisons"),
        ("a and b", "'and'/'or'"),
        ("lambda: 1", "lambda"),
        ("a if b else c", "conditional"),
        ("(a := 1)", "assignment"),
        ("a ** 2", "'**'"),
        ("a // 2", "'//'"),
        ("a % 2", "'%'"),
        ("~a", "'~'"),
        ("not a", "'not'"),
        ("'text'", "strings"),
        ("True", "constant True"),
        ("None + a", "constant None"),
        ("1j * a", "constant 1j"),
        ("[a, b]", "List"),
        ("a +", "not a valid expression"),
        ("a; b", "not a valid expression"),
        ("import os", "not a valid expression"),
        ("2 + 3", "names no counter"),
        ("`a", "not closed"),
        ("`` + a", "empty"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_everything_else_is_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="--metric") as info:
        parse_metric(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_nothing_is_executed(tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    for text in (
        f"__import__('os').system('touch {target}')",
        f"open('{target}', 'w')",
        "().__class__.__base__.__subclasses__()",
    ):
        with pytest.raises(ConfigError):
            parse_metric(text)
    assert not target.exists()


def test_length_limit() -> None:
    with pytest.raises(ConfigError, match="at most"):
        parse_metric(" + ".join(["a"] * 2000))


def test_metrics_compare_by_meaning_of_text() -> None:
    assert parse_metric("a/b") == parse_metric("a/b")
    assert parse_metric("a/b").inputs == parse_metric("b/a").inputs
    assert hash(parse_metric("a/b")) == hash(parse_metric("a/b"))
