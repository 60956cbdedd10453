"""Integration fixtures: the real Docker engine, real git, real CPython builds.

Builds go to their own cache (PYSTATS_TEST_CACHE, default ~/.cache/pystats-harness-tests) whose
mirror is fetched from the default cache's mirror, where scripts/bootstrap.sh imported the
release sources. The helpers the tests share are in tests/support. Tests of pyperformance benchmarks
use ``benchmark_wheelhouse`` (made on first use, by the function collect uses).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pystats_harness.config import load_settings, settings_from_environment
from pystats_harness.console import Reporter
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror
from pystats_harness.pyperformance.wheelhouse_ensure import ensure_benchmark_wheelhouse
from tests.support.faults import FAULTS
from tests.support.invoke_runner import Harness


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The table of faults tried (issue: faults tried, survived, entries damaged, leftovers)."""
    if not FAULTS:
        return
    terminalreporter.section("faults tried")
    terminalreporter.write_line(f"{'fault':<44}{'survived':>10}{'damaged':>9}{'leftovers':>11}")
    for fault, survived, damaged, left in FAULTS:
        terminalreporter.write_line(f"{fault:<44}{'yes' if survived else 'NO':>10}{damaged:>9}{left:>11}")
    terminalreporter.write_line(
        f"{len(FAULTS)} faults, {sum(s for _, s, _, _ in FAULTS)} survived, {sum(d for _, _, d, _ in FAULTS)} entries "
        f"damaged, {sum(left for _, _, _, left in FAULTS)} leftovers"
    )
    if table := os.environ.get("PYSTATS_FAULTS_TABLE"):  # the same rows as Markdown (the docs' tables)
        rows = [f"| {f} | {'yes' if s else 'NO'} | {d} | {n} |" for f, s, d, n in FAULTS]
        head = ["| fault | survived | damaged | leftovers |", "|---|---|---:|---:|"]
        Path(table).write_text("\n".join([*head, *rows]) + "\n")


@pytest.fixture(scope="session")
def harness() -> Harness:
    try:
        client = engine.connect()
    except Exception as exc:
        pytest.fail(f"integration tests need a Docker engine: {exc} (unit tests only: pytest tests/unit)")
    default = load_settings({})
    if engine.image_id(client, default.image) is None:
        pytest.fail(f"builder image {default.image} missing; run scripts/bootstrap.sh")
    cache = Path(os.environ.get("PYSTATS_TEST_CACHE", "~/.cache/pystats-harness-tests")).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    h = Harness(cache)
    Mirror(h.settings.mirror_dir).update(str(default.mirror_dir))
    return h


@pytest.fixture(scope="session")
def benchmark_wheelhouse() -> Path:
    """The benchmark wheelhouse the tasks read (INVOKE_PYSTATS_WHEELHOUSE_DIR, else the default), made
    once, before the first test that needs it, by the function collect uses (bootstrap does not make it)."""
    settings = settings_from_environment(os.environ)
    ensure_benchmark_wheelhouse(Context(settings, Reporter(verbose=True)))
    return settings.wheelhouse_dir
