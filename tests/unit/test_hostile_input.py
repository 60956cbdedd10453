"""Hostile and broken input meets one clear line and a distinct exit code, and nothing runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pystats_harness.cli import common
from pystats_harness.cli import stats as stats_cli
from pystats_harness.config import load_settings
from pystats_harness.infra.context import Context
from tests.support.invoke_runner import invoke_in


def _invoke(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``invoke ARGS`` with a scratch cache and no Docker engine to reach."""
    return invoke_in(tmp_path, *args, DOCKER_HOST="unix:///nonexistent")


@pytest.fixture
def mirror(tmp_path: Path, git_repo) -> Path:  # type: ignore[no-untyped-def]
    bare, _ = git_repo([{"configure.ac": "enable-pystats\n"}])
    assert _invoke(tmp_path, "mirror", "--remote", str(bare)).returncode == 0
    return bare


@pytest.mark.parametrize(
    "rev",
    [
        "$(touch /tmp/pystats-hostile)",
        "`touch /tmp/pystats-hostile`",
        "../../etc",
        "-h",
        "--help",
        "HEAD;touch /tmp/pystats-hostile",
        "a\nb",
        "main~99999",
    ],
)
def test_hostile_revision_names_run_nothing(tmp_path: Path, mirror: Path, rev: str) -> None:
    marker = Path("/tmp/pystats-hostile")
    marker.unlink(missing_ok=True)
    for task in ("build", "patches"):
        out = _invoke(tmp_path, task, f"--rev={rev}")
        assert out.returncode in (2, 3), (task, rev, out.stdout, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: revision"), lines
    assert not marker.exists()


@pytest.mark.parametrize(
    "content, line",
    [
        (b"opcode[LOAD_FAST].execution_count : 12\nopcode[LOAD_FAST].execution_co", 2),  # truncated mid-line
        (b"opcode[LOAD_FAST].execution_count : 12\n\x00\x01\x02binary\xff\n", 2),  # binary
        (b"Calls to PyEval_EvalDefault : 1\x00\n", 1),  # a NUL byte in a value
        (b"opcode[LOAD_FAST].execution_count : -5\n", 1),  # absurd: negative
        (b"opcode[LOAD_FAST].execution_count : 1e99\n", 1),  # absurd: not an integer
        (b"opcode[LOAD_FAST].execution_count : 12 13\n", 1),
        (b"\n" * 100_000 + b"no colon here\n", 100_001),  # huge
    ],
    ids=["truncated", "binary", "NUL", "negative", "float", "two numbers", "huge"],
)
def test_broken_dump_files_name_file_and_line(tmp_path: Path, content: bytes, line: int) -> None:
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    (dumps / "ok.txt").write_bytes(b"opcode[LOAD_FAST].execution_count : 1\n")
    (dumps / "broken.txt").write_bytes(content)
    out = _invoke(tmp_path, "stats", str(dumps))
    assert out.returncode == 12, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"broken.txt:{line}: malformed stats line" in lines[0], lines


def test_absurdly_large_counts_are_summed_exactly(tmp_path: Path) -> None:
    """Sums beyond any float's precision stay exact; a value no uint64 can hold is not a count."""
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    big = 2**63 - 1  # the largest count a dump prints that did not wrap
    for name in ("a", "b", "c"):
        (dumps / f"{name}.txt").write_text(f"opcode[LOAD_FAST].execution_count : {big}\n")
    out = _invoke(tmp_path, "stats", str(dumps), "--json", str(tmp_path / "c.json"))
    assert out.returncode == 0, out.stderr
    assert f'"opcode.LOAD_FAST.execution_count": {3 * big}' in (tmp_path / "c.json").read_text()
    (dumps / "b.txt").write_text(f"opcode[LOAD_FAST].execution_count : {10**40}\n")
    out = _invoke(tmp_path, "stats", str(dumps))
    assert out.returncode == 12 and "b.txt:1: malformed stats line" in out.stderr and "below 2**64" in out.stderr


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_any_bytes_either_parse_or_fail_with_exit_12_naming_the_file(tmp_path: Path, content: bytes) -> None:
    dumps = tmp_path / "fuzz"
    dumps.mkdir(exist_ok=True)
    for old in dumps.iterdir():
        old.unlink()
    (dumps / "fuzz.txt").write_bytes(content)
    ctx = Context(load_settings({"cache_dir": str(tmp_path / "cache")}))
    try:
        stats_cli.stats(ctx, dumps, None, "auto", json_out=None, markdown_out=None, loops=None, lenient=False)
    except BaseException as exc:  # as tasks.py maps it
        mapped = common.error_exit(exc)
        assert mapped is not None, f"{type(exc).__name__} escaped as a traceback: {exc}"
        line, code = mapped
        assert code == 12 and "fuzz.txt:" in line and "\n" not in line, line


@pytest.mark.parametrize(
    "metric",
    [
        "__import__('os').system('true')",
        "counters['x']",
        "open('/etc/passwd')",
        "a.b.c()",
        "(lambda: 1)()",
        "x if y else z",
    ],
)
def test_metric_expressions_that_call_or_index_are_refused(tmp_path: Path, metric: str) -> None:
    out = _invoke(tmp_path, "bisect", "--good", "a", "--bad", "b", "--workload", "nbody", "--metric", metric)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --metric"), lines


@pytest.mark.parametrize(
    "args",
    [
        ("collect", "--rev", "nosuch", "--benchmarks", "nbody"),
        ("history", "--from", "nosuch", "--to", "main", "--benchmarks", "nbody", "--metric", "instructions"),
        ("bisect", "--good", "nosuch", "--bad", "main", "--workload", "pyperformance:nbody", "--metric", "x"),
    ],
    ids=["collect", "history", "bisect"],
)
def test_a_mistyped_revision_costs_no_benchmark_wheelhouse(tmp_path: Path, mirror: Path, args: tuple[str, ...]) -> None:
    """The revision is resolved before the benchmarks are looked up: naming them needs the benchmark
    wheelhouse, minutes to make the first time, which a typo must not cost."""
    wheelhouse = tmp_path / "wheelhouse"
    out = invoke_in(tmp_path, *args, DOCKER_HOST="unix:///nonexistent", INVOKE_PYSTATS_WHEELHOUSE_DIR=str(wheelhouse))
    assert out.returncode == 3, out.stderr
    assert out.stderr.strip().splitlines() == [out.stderr.strip()] and "nosuch" in out.stderr
    assert not wheelhouse.exists()


@pytest.mark.parametrize("value, code", [("", 2), (".", 2), ("/proc/pystats/summary.md", 32)])
def test_an_output_file_that_cannot_be_written_is_refused_first(tmp_path: Path, value: str, code: int) -> None:
    dumps = Path(__file__).resolve().parents[1] / "data" / "dumps" / "3.13.5" / "run1"
    out = _invoke(tmp_path, "stats", str(dumps), f"--markdown={value}")
    assert out.returncode == code, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "--markdown" in out.stderr
    assert out.stdout == ""  # refused before the dumps were read


def test_a_value_with_a_line_break_still_makes_one_line(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "import-release", "--tarball", "a\r\nb\x1b[31m")
    assert out.returncode == 11
    assert out.stderr.splitlines() == [
        "error: release tarball a\\r\\nb\\x1b[31m does not exist; " + out.stderr.split("; ", 1)[1].strip()
    ]
