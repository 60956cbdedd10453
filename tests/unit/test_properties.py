"""Hypothesis properties where examples would miss cases: metric expressions (printing and parsing back
is the identity; evaluation is Python's arithmetic on the same numbers), exact and tolerance arithmetic
on counts beyond 2**53 (where a float stops counting by ones), and cache sizes written and read."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from pystats_harness.builder.prune import human, parse_size
from pystats_harness.collect.exactness import Allowance
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.suiteconfig import Tolerance
from pystats_harness.stats.exact import Rate, differences, excess

NAMES = st.sampled_from(["opcode.LOAD_ATTR.execution_count", "gc.0.collections", "family.CALL.hit", "x"])
COUNTS = st.integers(min_value=-(2**64), max_value=2**64)  # dumps' uint64 counters, wrapped ones negative


@st.composite
def expressions(draw: st.DrawFn, depth: int = 3) -> tuple[str, str]:
    """(metric text, the same as a Python expression over ``v[name]``)."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            n = draw(st.integers(min_value=0, max_value=10**6))
            return str(n), str(n)
        name = draw(NAMES)
        return name, f"v[{name!r}]"
    kind = draw(st.sampled_from(["+", "-", "*", "/", "neg"]))
    left = draw(expressions(depth - 1))
    if kind == "neg":
        return f"-({left[0]})", f"-({left[1]})"
    right = draw(expressions(depth - 1))
    return f"({left[0]}) {kind} ({right[0]})", f"({left[1]}) {kind} ({right[1]})"


#: A metric names at least one counter (a bare number is refused).
METRICS = expressions().filter(lambda pair: "v[" in pair[1])


@given(METRICS)
def test_printing_a_metric_and_parsing_it_back_is_the_identity(pair: tuple[str, str]) -> None:
    metric = parse_metric(pair[0])
    again = parse_metric(metric.expression)
    assert again.expression == metric.expression and again.inputs == metric.inputs


@given(METRICS, st.lists(st.integers(-(10**9), 10**9), min_size=4, max_size=4))
def test_a_metric_evaluates_as_python_does(pair: tuple[str, str], values: list[int]) -> None:
    text, python = pair
    v = dict(zip(["opcode.LOAD_ATTR.execution_count", "gc.0.collections", "family.CALL.hit", "x"], values, strict=True))
    metric = parse_metric(text)
    try:
        expected = float(eval(python, {}, {"v": {k: float(n) for k, n in v.items()}}))  # the test's own text
    except ZeroDivisionError:
        expected = math.nan
    got = metric.evaluate(v)
    if math.isnan(expected):  # a division by zero anywhere: Python raises, the metric is NaN throughout
        assert math.isnan(got)
    else:
        assert got == expected or math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-300)


@given(COUNTS, COUNTS, st.integers(1, 10**6), st.integers(1, 10**6))
def test_excess_is_exact_cross_multiplication(a: int, b: int, m: int, n: int) -> None:
    ra, rb = Rate({"c": a}, m), Rate({"c": b}, n)
    assert excess(ra, rb, "c") == a * n - b * m
    assert (excess(ra, rb, "c") == 0) == (Fraction(a, m) == Fraction(b, n)) == (ra.per_unit("c") == rb.per_unit("c"))
    assert [d.name for d in differences(ra, rb)] == ([] if Fraction(a, m) == Fraction(b, n) else ["c"])


@given(st.integers(2**53, 2**64))
def test_counts_beyond_2_53_differ_by_one(big: int) -> None:
    """Where float(big) == float(big + 1), the exact comparison still sees the one count."""
    assert differences(Rate({"c": big}), Rate({"c": big + 1})) != []
    assert excess(Rate({"c": big + 1}), Rate({"c": big}), "c") == 1
    assert not Tolerance().allows(big, big + 1) and Tolerance(abs=1).allows(big, big + 1)


@given(COUNTS, COUNTS, st.integers(0, 10**6), st.integers(0, 1000))
def test_tolerance_is_abs_plus_rel_of_the_base_exactly(base: int, new: int, abs_: int, permille: int) -> None:
    rel = Fraction(permille, 1000)
    t = Tolerance(rel=float(rel), abs=abs_)
    assert t.allows(base, new) == (abs(new - base) <= abs_ + Fraction(float(rel)) * abs(base))
    assert t.allows(base, base) and Tolerance(ignore=True).allows(base, new)


@given(COUNTS, COUNTS, st.integers(0, 10**6), st.integers(0, 1000))
def test_allowance_is_symmetric_and_abs_plus_rel_of_the_larger(a: int, b: int, abs_: int, permille: int) -> None:
    allowance = Allowance(permille / 1000, "varies", abs_)
    assert allowance.allows(a, b) == allowance.allows(b, a)
    assert allowance.allows(a, a)
    if abs(a - b) <= abs_:
        assert allowance.allows(a, b)


UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


@given(st.integers(0, 10**6), st.sampled_from(sorted(UNITS)), st.sampled_from(["", "B", "iB"]), st.booleans())
def test_a_size_reads_as_its_bytes(n: int, unit: str, suffix: str, lower: bool) -> None:
    text = f"{n}{unit}{suffix if unit else ''}"
    assert parse_size(text.lower() if lower else text) == n * UNITS[unit]


@given(st.integers(0, 2**50))
def test_a_printed_size_reads_back_within_its_rounding(size: int) -> None:
    """human() keeps one decimal: reading its text back is within 0.05 of the unit it printed in."""
    text = human(size)
    m = re.fullmatch(r"(\d+(?:\.\d)?) (B|KB|MB|GB|TB)", text)
    assert m, text
    unit = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}[m[2]]
    back = parse_size(text.replace(" ", ""))
    assert abs(back - size) <= (0.5 if unit == 1 else 0.05) * unit + 1
