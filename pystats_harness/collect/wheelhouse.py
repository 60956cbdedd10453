"""TEMP STUB (helper C replaces)."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.infra.context import Context


def benchmark_data_dir(ctx: Context) -> Path:
    return Path("/tmp/pp/x/pyperformance/data-files/benchmarks")
