"""Patched builds and their behaviour fingerprints (real builds, fresh containers)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.support.history import mirror_real_history, needs_real_history
from tests.support.invoke_runner import Harness
from tests.support.repo import commit_files


def build(harness: Harness, rev: str, patches: str = "auto"):
    out = harness.invoke("build", "--rev", rev, "--patches", patches)
    path = next((Path(line.split()[1]) for line in out.stdout.splitlines() if line.startswith("build ")), None)
    return out, path


def test_3112_with_all_three_changes_passes_the_fingerprint(harness: Harness) -> None:
    out, path = build(harness, "v3.11.2")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    m = json.loads((path / "manifest.json").read_text())
    assert [p["id"] for p in m["patches"]] == ["stats-api", "dump-when-off", "xstats-default-off"]
    assert all(len(p["sha256"]) == 64 for p in m["patches"])
    assert m["verification"]["ok"] and all(v["ok"] for v in m["fingerprint"].values())
    assert m["python"]["version"] == "3.11.2" and m["python"]["has_stats_api"]
    verify = harness.invoke("verify", "--rev", "v3.11.2")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_3112_unpatched_builds_but_verify_fails_with_a_table(harness: Harness) -> None:
    out, path = build(harness, "v3.11.2", "none")
    assert out.returncode == 0, out.stderr[-3000:]
    assert "differs from fixed pystats" in out.stderr and "not fatal" in out.stderr
    m = json.loads((path / "manifest.json").read_text())
    assert m["patches"] == [] and not m["verification"]["ok"]
    verify = harness.invoke("verify", "--rev", "v3.11.2", "--patches", "none")
    assert verify.returncode == 9
    for probe in ("plain", "on-work-off", "dump-midrun"):
        assert probe in verify.stdout
    assert "MISMATCH" in verify.stdout
    assert verify.stderr.strip().splitlines()[-1].startswith("error: v3.11.2 (--patches none) differs")


def test_3135_applies_nothing_and_passes(harness: Harness) -> None:
    plan = harness.invoke("patches", "--rev", "v3.13.5")
    changes = len(tomllib.loads(Path("configs/patch-series.toml").read_text())["change"])
    assert plan.returncode == 0 and plan.stdout.count("already present") == changes == 5  # every change is in 3.13.5
    out, path = build(harness, "v3.13.5")
    assert out.returncode == 0
    assert json.loads((path / "manifest.json").read_text())["patches"] == []
    assert harness.invoke("verify", "--rev", "v3.13.5").returncode == 0


def test_patch_that_does_not_apply_names_file_and_hunk(harness: Harness) -> None:
    mirror = harness.settings.mirror_dir
    import subprocess

    ceval = subprocess.run(
        ["git", "--git-dir", str(mirror), "show", "v3.11.2:Python/ceval.c"], capture_output=True, text=True, check=True
    ).stdout
    assert "            _py_stats.opcode_stats[FOR_ITER].specialization.failure++;" in ceval
    broken = ceval.replace(
        "            _py_stats.opcode_stats[FOR_ITER].specialization.failure++;",
        "            _py_stats.opcode_stats[FOR_ITER].specialization.failure += 1;",
    )
    sha = commit_files(
        mirror,
        "v3.11.2",
        {"Python/ceval.c": ("100644", broken)},
        "planted: patch context changed",
        branch="test/patch-conflict",
    )
    out = harness.invoke("build", "--rev", sha)
    assert out.returncode == 8, out.stdout + out.stderr
    line = out.stderr.strip().splitlines()[-1]
    assert "stats-api" in line and "Python/ceval.c" in line and "@@" in line and "nothing was applied" in line
    assert not list(harness.settings.worktrees_dir.glob("wt-*"))


@needs_real_history
@pytest.mark.parametrize(
    "rev, applied",
    [
        ("1583c6e326~1", ["dump-when-off", "xstats-default-off"]),
        ("1583c6e326", ["pythonstats-env"]),
        ("9471106fd5", ["stats-api", "dump-when-off", "xstats-default-off"]),
    ],
    ids=["last pre-fix commit", "the fix itself", "3.11.0a4 release commit (3.11-dev patches)"],
)
def test_real_history_around_the_fix(harness: Harness, rev: str, applied: list[str]) -> None:
    mirror_real_history(harness)
    out, path = build(harness, rev)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    m = json.loads((path / "manifest.json").read_text())
    assert [p["id"] for p in m["patches"]] == applied
    assert m["verification"]["ok"], m["fingerprint"]
    assert harness.invoke("verify", "--rev", rev).returncode == 0
