"""`invoke bisect` / `bisect-run` end to end: a planted specialization change in a short history
(tests/support/planted.py: nine commits on v3.13.5, the change at 5, a broken build at 6).

The search probes 4 (good), then 6 (the midpoint of 4..9: build fails, skipped), steps to 7 (bad),
then 5 (bad): the first bad commit is exactly 5 and the broken one is reported as skipped.
Real builds (warm ccache: ~30 s each) and real stats; a second run builds nothing.
"""

from __future__ import annotations

import json
import math
import subprocess
import time
from pathlib import Path

import pytest

from pystats_harness.results import Store, Task
from tests.support.invoke_runner import INVOKE, ROOT, Harness
from tests.support.planted import BASE, BRANCH, BROKEN, METRIC, PLANTED, SCRIPT, WORKLOAD, N, planted_history
from tests.support.repo import commit_files


@pytest.fixture(scope="module")
def history(harness: Harness) -> list[str]:
    return planted_history(harness.settings.mirror_dir)


def _bisect(harness: Harness, out: Path, *, confirm: bool = False, **opts: str) -> tuple[int, dict | None, str]:
    """(exit code, report.json, output) of `invoke bisect --good BASE --bad BRANCH ...` (with the culprit's
    confirmation only when ``confirm``: the first run has it)."""
    args = {"good": BASE, "bad": BRANCH, "workload": WORKLOAD, "metric": METRIC, "out": str(out), **opts}
    flags = [x for k, v in args.items() for x in (f"--{k}", v)] + ([] if confirm else ["--no-confirm"])
    proc = harness.invoke("bisect", *flags)
    code, output = proc.returncode, proc.stdout + proc.stderr
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").is_file() else None
    return code, report, output


def _bisect_run(harness: Harness, rev: str, **opts: str | None) -> int:
    """Exit code of `invoke bisect-run --rev REV ...` (threshold/direction as in the first run unless given)."""
    args = {"workload": WORKLOAD, "metric": METRIC, "rev": rev, **opts}
    return harness.invoke(
        "bisect-run", *[x for k, v in args.items() if v is not None for x in (f"--{k}", v)]
    ).returncode


@pytest.fixture(scope="module")
def first_run(harness: Harness, history: list[str], tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bisect") / "first"
    start = time.perf_counter()
    code, report, output = _bisect(harness, out, confirm=True)
    assert code == 0 and report is not None, output
    return {"out": out, "report": report, "output": output, "seconds": time.perf_counter() - start}


def test_bisect_finds_the_planted_commit_and_steps_around_the_broken_one(first_run: dict, history: list[str]) -> None:
    r = first_run["report"]
    assert r["n_commits"] == N and r["commits"] == history
    assert r["exact"] and r["first_bad"]["sha"] == history[PLANTED]
    assert r["first_bad"]["subject"] == "Do not specialize float additions in BINARY_OP"
    assert r["first_bad"]["date"].startswith("2023-11-14")
    j = r["judge"]
    assert j["direction"] == "down" and j["good_value"] > 0.9 and j["bad_value"] < 0.8
    assert math.isclose(j["threshold"], (j["good_value"] + j["bad_value"]) / 2)
    skipped = {s["sha"]: s["reason"] for s in r["skipped"]}
    assert list(skipped) == [history[BROKEN]]
    assert skipped[history[BROKEN]].startswith("build failed")
    assert "unknown type name" in skipped[history[BROKEN]] or "error" in skipped[history[BROKEN]]
    statuses = {t["index"]: t["status"] for t in r["tested"]}
    assert statuses[PLANTED] == "bad" and statuses[PLANTED - 1] == "good" and statuses[BROKEN] == "skipped"
    goal = math.ceil(math.log2(N)) + 2
    run = r["run"]
    assert run["builds"] <= goal + 1, run  # +1: the broken commit
    assert len(run["steps"]) <= goal + 1
    out = first_run["out"]
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert history[PLANTED][:12] in (out / "report.md").read_text()


def test_bisect_confirms_the_culprit_with_its_revert(harness: Harness, first_run: dict, history: list[str]) -> None:
    """4 and 5 re-measured three times each (fresh containers, not from the results store), then the tip built with
    5's diff reversed (one neighbouring build; a build-cache hit when run before) and measured once."""
    r = first_run["report"]
    c, threshold = r["confirmation"], r["judge"]["threshold"]
    assert c["status"] == "confirmed", c
    assert len(c["good_values"]) == 3 and all(v > threshold for v in c["good_values"])
    assert len(c["bad_values"]) == 3 and all(v < threshold for v in c["bad_values"])
    revert = c["revert"]
    assert revert["applied"] and revert["sha"] == history[PLANTED] and revert["onto"] == history[-1]
    assert revert["value"] > threshold
    assert c["runs"] == 7 and c["builds"] <= 1
    assert f"confirmed: parent {c['good_values'][0]:.6g}" in c["line"]
    assert f"bad + revert of {history[PLANTED][:10]}" in c["line"]
    assert "confirmation confirmed: parent" in first_run["output"]
    assert "Confirmation: confirmed" in (first_run["out"] / "report.md").read_text()
    with Store.open(harness.settings.paths.results_db, create=False) as store:  # its fresh runs are recorded
        runs = [store.get(s.run_id) for s in store.runs(Task.BISECT)]
    # a run is named by its content (not its report folder): the tests' cache outlives a session, and an earlier
    # session's revert with the same counters is the run this one recorded (the one stored, its folder that session's)
    reverted = [run for run in runs if run.patches == ("auto", f"revert {history[PLANTED]}")]
    assert {(run.sha, run.extra["confirmation"]) for run in reverted} == {
        (history[-1], f"confirm bad + revert of {history[PLANTED][:10]}")
    }


def test_second_run_reuses_every_result(harness: Harness, first_run: dict, history: list[str], tmp_path: Path) -> None:
    code, report, output = _bisect(harness, tmp_path / "again")
    assert code == 0 and report is not None, output
    assert report["first_bad"]["sha"] == history[PLANTED]
    assert report["run"]["builds"] == 0
    assert {s["source"] for s in report["run"]["steps"]} == {"results store"}
    assert [t["sha"] for t in report["tested"]] == [t["sha"] for t in first_run["report"]["tested"]]
    assert "first bad commit" in output and history[PLANTED] in output
    assert "build failed" in output
    assert report["confirmation"]["status"] == "not run" and report["confirmation"]["runs"] == 0


def test_bisect_run_exit_codes(harness: Harness, first_run: dict, history: list[str]) -> None:
    judged = {"threshold": str(first_run["report"]["judge"]["threshold"]), "direction": "down"}
    assert _bisect_run(harness, history[PLANTED - 1], **judged) == 0
    assert _bisect_run(harness, history[PLANTED], **judged) == 1
    assert _bisect_run(harness, history[BROKEN], **judged) == 125
    assert _bisect_run(harness, history[-1], **judged) == 1
    assert _bisect_run(harness, BASE, **judged) == 0
    assert _bisect_run(harness, BASE, **{**judged, "direction": "up"}) == 1  # the same value judged the other way
    assert _bisect_run(harness, BASE, direction="down") == 128  # no --threshold: a setup error aborts git bisect run
    assert _bisect_run(harness, BASE, **judged, metric="opcode.BINARY_OP.hit +") == 128
    assert _bisect_run(harness, "no-such-revision", **judged) == 125


def test_git_bisect_run_finds_the_planted_commit(
    harness: Harness, first_run: dict, history: list[str], tmp_path: Path
) -> None:
    """`git bisect start --no-checkout` in a clone; bisect-run measures BISECT_HEAD (results are cached)."""
    clone = tmp_path / "clone"
    git = ["git", "-C", str(clone)]
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", str(harness.settings.mirror_dir), str(clone)], check=True
    )
    subprocess.run([*git, "update-ref", "--no-deref", "HEAD", history[0]], check=True)
    subprocess.run([*git, "bisect", "start", "--no-checkout", history[-1], history[0]], check=True, capture_output=True)
    threshold = str(first_run["report"]["judge"]["threshold"])
    command = [
        *INVOKE,
        "-r",
        str(ROOT),
        "bisect-run",
        "--workload",
        WORKLOAD,
        "--metric",
        METRIC,
        "--threshold",
        threshold,
        "--direction",
        "down",
    ]
    proc = subprocess.run(
        [*git, "bisect", "run", *command], capture_output=True, text=True, timeout=1800, env=harness.env()
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{history[PLANTED]} is the first bad commit" in proc.stdout, proc.stdout


def test_endpoints_must_differ_as_claimed(
    harness: Harness, first_run: dict, history: list[str], tmp_path: Path
) -> None:
    code, _, output = _bisect(harness, tmp_path / "same", bad=history[PLANTED - 1])  # 3.13.5 and commit 4 agree
    assert code == 2 and ("they are equal" in output or "both are good" in output), output
    code, _, output = _bisect(harness, tmp_path / "wrong-direction", direction="up")
    assert code == 2 and "by 'bad means > " in output, output
    code, _, output = _bisect(harness, tmp_path / "swapped", good=BRANCH, bad=BASE)
    assert code == 2 and "not an ancestor" in output, output


def test_script_workload(harness: Harness, first_run: dict, history: list[str], tmp_path: Path) -> None:
    script = tmp_path / "float_adds.py"
    script.write_text(SCRIPT)
    judged = {"threshold": "0.5", "direction": "down", "workload": str(script)}
    assert _bisect_run(harness, history[PLANTED - 1], **judged) == 0
    assert _bisect_run(harness, history[PLANTED], **judged) == 1


def test_good_on_another_branch_bisects_from_the_merge_base(
    harness: Harness, first_run: dict, history: list[str], tmp_path: Path
) -> None:
    side = commit_files(
        harness.settings.mirror_dir,
        history[3],
        {"Misc/side-branch.txt": ("100644", "side\n")},
        "a commit on a side branch",
        branch="test-bisect-side",
    )
    code, report, output = _bisect(harness, tmp_path / "side", good=side)
    assert code == 0, output
    assert "merge base" in output
    assert report["commits"][0] == history[3] and report["first_bad"]["sha"] == history[PLANTED]
