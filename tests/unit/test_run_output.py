"""A failed benchmark run's one line and log tail: its error, not the stats dump printed after it."""

from __future__ import annotations

from pystats_harness.pyperformance.output import output_tail


def test_a_failed_runs_last_line_is_its_error_not_the_stats_dump_printed_after_it() -> None:
    dump = "\n".join(f"Object method cache dunder misses {i}: 0" for i in range(40))
    text = f"Traceback (most recent call last):\n  File \"x.py\"\nAttributeError: 'FunctionDef' object has no attribute 'type_params'\n{dump}\n"
    assert output_tail(text, 1) == "AttributeError: 'FunctionDef' object has no attribute 'type_params'"
    assert output_tail("Traceback\nValueError: 5\n", 1) == "ValueError: 5"  # one stat-like line is not a dump
    assert output_tail("a: 1\nb: 2\n", 30) == "a: 1\nb: 2"
