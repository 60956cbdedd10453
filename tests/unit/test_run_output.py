"""A failed benchmark run's one line and log tail: its error, not the stats dump printed after it."""

from __future__ import annotations

from pystats_harness.pyperformance.output import error_line, output_tail


def test_a_failed_runs_last_line_is_its_error_not_the_stats_dump_printed_after_it() -> None:
    dump = "\n".join(f"Object method cache dunder misses {i}: 0" for i in range(40))
    text = f"Traceback (most recent call last):\n  File \"x.py\"\nAttributeError: 'FunctionDef' object has no attribute 'type_params'\n{dump}\n"
    assert output_tail(text, 1) == "AttributeError: 'FunctionDef' object has no attribute 'type_params'"
    assert output_tail("Traceback\nValueError: 5\n", 1) == "ValueError: 5"  # one stat-like line is not a dump
    assert output_tail("a: 1\nb: 2\n", 30) == "a: 1\nb: 2"


PYPERF_AFTER_WORKER = """Traceback (most recent call last):
  File "/bench-site/genshi/template/astutil.py", line 802, in _clone
    clone = node.__class__()
TypeError: ast.Expression.__init__ missing 1 required positional argument: 'body'
Traceback (most recent call last):
  File "/wheels/site/pyperf/_manager.py", line 118, in spawn_worker
    raise RuntimeError("%s failed with exit code %s"
                       % (cmd[0], exitcode))
RuntimeError: /opt/pystats/bin/python3 failed with exit code 1
"""


def test_the_one_line_is_the_failed_workers_error_not_pyperfs_report_of_it() -> None:
    assert (
        error_line(PYPERF_AFTER_WORKER)
        == "TypeError: ast.Expression.__init__ missing 1 required positional argument: 'body'"
    )
    only_pyperf = PYPERF_AFTER_WORKER.split("TypeError")[1].split("\n", 1)[1]  # no worker traceback before it
    assert error_line(only_pyperf) == "RuntimeError: /opt/pystats/bin/python3 failed with exit code 1"
    assert error_line("Traceback (most recent call last):\nValueError: 5\n\n") == "ValueError: 5"
    assert error_line("") == ""
