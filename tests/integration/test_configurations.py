"""`--config`: 3.13.5's tier-2 interpreter built as its own cache entry (the one extra cold build of
this file), the optimizer on in its runs, and the refusals (exit 29, exit 2) that need no build."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.invoke_runner import Harness

#: A loop hot enough to be traced by the tier-2 optimizer (its backward jump warms up after 16 passes).
HOT_LOOP = "total = 0\nfor i in range(100_000):\n    total += i\nprint(total)"


@pytest.fixture(scope="module")
def built_tier2(harness: Harness) -> dict:
    first = harness.invoke("build", "--rev", "v3.13.5", "--config", "tier2")
    assert first.returncode == 0, first.stdout + first.stderr
    line = next(line for line in first.stdout.splitlines() if line.startswith("build "))
    path = Path(line.split()[1])
    return {"path": path, "stdout": first.stdout, "manifest": json.loads((path / "manifest.json").read_text())}


def _key(stdout: str) -> str:
    return next(line.split()[-1] for line in stdout.splitlines() if line.startswith("cache key"))


def test_tier2_is_its_own_build_recorded_as_such(harness: Harness, built_tier2: dict) -> None:
    m = built_tier2["manifest"]
    assert m["configuration"] == "tier2" and m["configuration_form"]["id"] == "configure"
    assert m["configure_flags"][-1] == "--enable-experimental-jit=interpreter"
    assert m["verification"]["ok"] and m["verification"]["configuration"] == "tier2"
    assert "config     tier2 (configure)" in built_tier2["stdout"]
    default = harness.invoke("build", "--rev", "v3.13.5", "--dry-run")
    assert default.returncode == 0 and "config     default (plain)" in default.stdout
    assert _key(default.stdout) != _key(built_tier2["stdout"]) == m["key"]
    listed = harness.invoke("cache", "list")
    assert listed.returncode == 0 and "tier2" in listed.stdout


def _optimizer_lines(harness: Harness, config: str) -> dict[str, int]:
    out = harness.invoke("run", "--rev", "v3.13.5", "--config", config, "--", "-X", "pystats", "-c", HOT_LOOP)
    assert out.returncode == 0 and out.stdout.strip() == str(sum(range(100_000))), out.stderr
    stats_dir = Path(re.search(r"stats: 1 file\(s\) in (\S+)", out.stderr)[1])  # type: ignore[index]
    text = next(stats_dir.iterdir()).read_text()
    return {m[1]: int(m[2]) for m in re.finditer(r"^(Optimization [^:]+?)\s*:\s*(\d+)$", text, re.M)}


def test_tier2_runs_have_the_optimizer_on(harness: Harness, built_tier2: dict) -> None:
    """3.13.5 prints its optimizer section only in a _Py_TIER2 build, and traces are made at run time."""
    lines = _optimizer_lines(harness, "tier2")
    assert lines.get("Optimization attempts", 0) > 0 and lines.get("Optimization traces created", 0) > 0, lines


def test_a_revision_without_the_configuration_is_refused_in_one_line(harness: Harness) -> None:
    out = harness.invoke("build", "--rev", "v3.11.2", "--config", "tier2")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 29 and len(lines) == 1, out.stderr
    assert "cannot build configuration tier2 with pystats" in lines[0] and "try v3.13.5" in lines[0]
    jit = harness.invoke("build", "--rev", "v3.13.5", "--config", "jit", "--dry-run")
    assert jit.returncode == 29 and "requires LLVM 18" in jit.stderr
    unknown = harness.invoke("build", "--rev", "v3.13.5", "--config", "nonsense")
    assert unknown.returncode == 2 and "known configurations: default, tier2, jit, freethreading" in unknown.stderr
