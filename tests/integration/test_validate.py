"""`invoke baseline` / `invoke validate` on real builds against the committed baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pystats_harness.results import Store, Task
from tests.support.history import mirror_real_history, needs_real_history
from tests.support.invoke_runner import ROOT, Harness

STEPS = ("fingerprint", "canaries", "threads", "leakage", "isolation", "baselines")


def validate(harness: Harness, tmp_path: Path, *args: str, **env: str):
    out = harness.invoke("validate", "--out", str(tmp_path), *args, **env)
    report = json.loads((tmp_path / "validation.json").read_text()) if (tmp_path / "validation.json").exists() else None
    return out, report


@pytest.mark.parametrize("rev", ["v3.13.5", "v3.11.2"])
def test_validate_passes_against_committed_baselines(harness: Harness, tmp_path: Path, rev: str) -> None:
    out, report = validate(harness, tmp_path, "--rev", rev)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert [s["status"] for s in report["steps"]] == ["pass"] * 6
    steps = ["fingerprint", "canaries", "threads", "leakage", "isolation", "baselines"]
    assert [s["step"] for s in report["steps"]] == steps
    assert "exact" in report["steps"][1]["summary"]  # canaries exact on both versions
    assert report["steps"][2]["summary"].startswith("threaded canary calls exact with 1/2/4/8 threads, 5 runs each")
    assert (tmp_path / "validation.md").read_text().startswith("**pystats validation of")
    assert (tmp_path / "deviation.png").stat().st_size > 1000


def test_unpatched_3112_fails_naming_leakage(harness: Harness, tmp_path: Path) -> None:
    out, report = validate(
        harness, tmp_path, "--rev", "v3.11.2", "--patches", "none", "--workloads", "nbody,json_roundtrip"
    )
    assert out.returncode == 20  # the fingerprint fails first ...
    line = out.stderr.strip().splitlines()[-1]
    assert "leakage:" in line and "nbody" in line  # ... and the leakage is named
    leakage = next(s for s in report["steps"] if s["step"] == "leakage")
    outside = [f for f in leakage["findings"] if f["check"] == "outside the bracket (manual)"]
    assert {f["workload"] for f in outside} == {"nbody", "json_roundtrip"}
    assert any("no sys._stats_on" in str(f["a"]) for f in leakage["findings"] if f["check"] == "automated path")


def test_planted_leaks_are_caught_and_named(harness: Harness, tmp_path: Path) -> None:
    """leaky (instructions) and leaky_alloc (10,000 objects made by a few instructions) leak; nbody does not."""
    out, report = validate(harness, tmp_path, "--rev", "v3.13.5", "--workloads", "nbody,leaky,leaky_alloc")
    assert out.returncode == 22, out.stdout[-3000:]
    leakage = next(s for s in report["steps"] if s["step"] == "leakage")
    assert {f["workload"] for f in leakage["findings"]} == {"leaky", "leaky_alloc"}
    assert any(f["check"] == "automated vs manual" for f in leakage["findings"])
    alloc = [f for f in leakage["findings"] if f["workload"] == "leaky_alloc" and f["counter"] == "objects.allocations"]
    assert alloc and alloc[0]["beyond"] == "leak_check.rule[objects.allocations]"
    assert alloc[0]["a"] - alloc[0]["b"] >= 10_000
    assert "leaky" in out.stderr.strip().splitlines()[-1]
    assert_recorded(harness, report["metadata"]["sha"])


def assert_recorded(harness: Harness, sha: str) -> None:
    """The validation is in the results store (named by its content: a run of the same counts again is the
    same run), `invoke results` shows it, and its nbody counters per loop (manual path) are within 2% of the
    committed baseline's (automated, net of the null workload)."""
    wanted = {"nbody", "leaky", "leaky_alloc", *(f"step:{s}" for s in STEPS)}
    with Store.open(harness.settings.paths.results_db, create=False) as store:
        runs = [store.get(r.run_id) for r in store.runs(Task.VALIDATE) if r.sha == sha]
    (run,) = [r for r in runs if {u.name for u in r.units} == wanted][-1:]
    assert [(u.name, u.verdict) for u in run.units if not u.name.startswith("step:")] == [
        ("nbody", "pass"),
        ("leaky", "fail"),
        ("leaky_alloc", "fail"),
    ]
    shown = harness.invoke("results", "--run", run.run_id[:12])
    assert shown.returncode == 0 and "leakage:" in shown.stdout and run.run_id in shown.stdout, shown.stderr
    metric = "opcode.BINARY_OP.specialization.hit_ratio"
    series = harness.invoke("results", "--metric", metric, "--benchmark", "nbody", "--task", "validate", "--json")
    assert series.returncode == 0, series.stderr
    (point,) = [p for p in json.loads(series.stdout) if p["run_id"] == run.run_id]
    baseline = json.loads((ROOT / "configs/baselines/3.13.5/nbody.json").read_text())["per_loop"]
    hit, miss = (baseline.get(f"opcode.BINARY_OP.specialization.{k}", 0) for k in ("hit", "miss"))
    assert point["verdict"] == "pass" and point["value"] == pytest.approx(hit / (hit + miss), rel=0.01)
    assert run.unit("nbody").values["opcode.BINARY_OP.execution_count"] == pytest.approx(  # type: ignore[union-attr]
        baseline["opcode.BINARY_OP.execution_count"], rel=0.02
    )


def test_baseline_records_manual_per_loop_stats(harness: Harness, tmp_path: Path) -> None:
    out = harness.invoke(
        "baseline", "--rev", "v3.13.5", "--workloads", "nbody", INVOKE_PYSTATS_BASELINES_DIR=str(tmp_path)
    )
    assert out.returncode == 0, out.stderr[-2000:]
    path = Path(out.stdout.split()[-1])
    doc = json.loads(path.read_text())
    assert doc["metadata"]["path"] == "manual" and doc["metadata"]["loops"] == 10
    assert not any(k.startswith("family.") for k in doc["per_loop"])
    assert (
        sum(v for k, v in doc["per_loop"].items() if k.startswith("opcode.BINARY_OP") and k.endswith("execution_count"))
        > 1000
    )
    assert path == tmp_path / "3.13.5" / "nbody.json"
    # a build without a baseline: validate says so with its own exit code
    empty = tmp_path / "empty"
    out, report = validate(
        harness,
        tmp_path / "report",
        "--rev",
        "v3.13.5",
        "--workloads",
        "nbody",
        "--require-baseline",
        INVOKE_PYSTATS_BASELINES_DIR=str(empty),
    )
    assert out.returncode == 24 and "no baseline" in out.stderr and "invoke baseline" in out.stderr
    isolation = next(s for s in report["steps"] if s["step"] == "isolation")  # one workload chosen: a partner
    assert isolation["status"] == "pass" and isolation["summary"].startswith(
        "nbody + richards (partner) at once in 2 containers count"
    )
    # the counters a rule left out are named with the rule; "exactly" only if there were none
    used = [a["rule"] for a in isolation["allowances"]]
    assert ("exactly" in isolation["summary"]) == (not used)
    assert all(f"rule {rule}" in isolation["summary"] for rule in used)


@needs_real_history
@pytest.mark.parametrize(
    "rev, workloads, baselines",
    [("v3.12.0", "", "pass"), ("1583c6e326", "nbody", "no baseline")],
    ids=["3.12.0 against its committed baselines", "main Dec 2022 (FOR_ITER_RANGE stores, COMPARE_OP_*_JUMP)"],
)
def test_validate_the_3_12_line(harness: Harness, tmp_path: Path, rev: str, workloads: str, baselines: str) -> None:
    mirror_real_history(harness)
    out, report = validate(harness, tmp_path, "--rev", rev, *(["--workloads", workloads] if workloads else []))
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert [s["status"] for s in report["steps"]] == ["pass"] * 5 + [baselines]
    assert "exact" in report["steps"][1]["summary"]


@needs_real_history
def test_deferred_decremented_by_misses_is_adjusted_not_leakage(harness: Harness, tmp_path: Path) -> None:
    """main 84b7e9e3fa (Oct 2023, 3.13.0a1+): UPDATE_MISS_STATS decrements a miss's deferred count
    before the instruction increments it, and RESUME (whose RESUME_CHECK deopts whenever the eval
    breaker is set) never increments it, so its uint64 wraps below zero.  Read signed, compared as
    integers, and allowed what the misses explain: leakage passes and says so."""
    mirror_real_history(harness)
    out, report = validate(harness, tmp_path, "--rev", "84b7e9e3fa", "--workloads", "classes,generators")
    leakage = next(s for s in report["steps"] if s["step"] == "leakage")
    assert leakage["status"] == "pass", json.dumps(leakage, indent=1)[-4000:]
    assert report["metadata"]["deferred_rule"]["applied"] is True
    adjusted = [f for f in leakage["findings"] if f["check"] == "adjusted across an instruction boundary"]
    assert adjusted and adjusted == list(leakage["findings"])
    assert {f["counter"] for f in adjusted} >= {"opcode.RESUME.specialization.deferred"}
    assert all(isinstance(f["b"], int) and f["b"] < 0 for f in adjusted if "RESUME" in f["counter"])
    why = "adjusted across an instruction boundary (UPDATE_MISS_STATS decrements deferred before the instruction"
    assert why in leakage["summary"] and why in (tmp_path / "validation.md").read_text()
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
