"""`invoke bisect` / `bisect-run` end to end: a planted specialization change in a short history.

On top of the imported v3.13.5 (index 0, good) nine commits are made in the test mirror (fixed dates,
so the shas are the same in every session):

    1-4  comments in Objects/*.c (build, same stats)
    5    Python/specialize.c: _Py_Specialize_BinaryOp no longer specializes float additions
         (BINARY_OP_ADD_FLOAT) -> in nbody the share of BINARY_OP executions that are specialized
         hits drops from ~0.96 to ~0.72
    6    Objects/floatobject.c gets a line that is not C: make fails
    7    fixes it; 8-9 comments (9 = tip = bad)

The search probes 4 (good), then 6 (the midpoint of 4..9: build fails, skipped), steps to 7 (bad),
then 5 (bad): the first bad commit is exactly 5 and the broken one is reported as skipped.
Real builds (warm ccache: ~30 s each) and real stats; a second run builds nothing.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pystats_harness.infra.mirror import Mirror
from tests.integration.conftest import ROOT, Harness, make_commit

BASE = "v3.13.5"
BRANCH = "test-bisect-history"
WORKLOAD = "nbody"
METRIC = "opcode.BINARY_OP.specialization.hit / family.BINARY_OP.execution_count"
PLANTED, BROKEN, N = 5, 6, 10  # indices on the path (0 = good = v3.13.5, 9 = bad)

FLOAT_ADD_RULE = """            if (PyFloat_CheckExact(lhs)) {
                instr->op.code = BINARY_OP_ADD_FLOAT;
                goto success;
            }
"""
NOT_C = "this is not C;\n"


def _history(mirror_dir: Path) -> list[str]:
    mirror = Mirror(mirror_dir)
    base = mirror.resolve(BASE).sha
    texts: dict[str, str] = {}

    def text(path: str) -> str:
        if path not in texts:
            texts[path] = mirror.read_file(base, path) or ""
        return texts[path]

    def comment(path: str, n: int) -> tuple[str, str]:
        texts[path] = text(path) + f"/* bisect test: trivial change {n} */\n"
        return path, texts[path]

    specialize = text("Python/specialize.c")
    assert specialize.count(FLOAT_ADD_RULE) == 1, "3.13.5's float-add rule not found"
    planted = specialize.replace(FLOAT_ADD_RULE, "            /* bisect test: float additions are not specialized */\n")
    steps: list[tuple[str, str, str]] = [
        (*comment("Objects/floatobject.c", 1), "comment 1 (floatobject.c)"),
        (*comment("Objects/longobject.c", 2), "comment 2 (longobject.c)"),
        (*comment("Objects/listobject.c", 3), "comment 3 (listobject.c)"),
        (*comment("Objects/floatobject.c", 4), "comment 4 (floatobject.c)"),
        ("Python/specialize.c", planted, "Do not specialize float additions in BINARY_OP"),
        ("Objects/floatobject.c", text("Objects/floatobject.c") + NOT_C, "Break the build (floatobject.c)"),
        (*comment("Objects/floatobject.c", 7), "Fix the build (floatobject.c)"),
        (*comment("Objects/longobject.c", 8), "comment 8 (longobject.c)"),
        (*comment("Objects/listobject.c", 9), "comment 9 (listobject.c)"),
    ]
    shas, parent = [base], base
    for path, content, message in steps:
        parent = make_commit(mirror_dir, parent, {path: ("100644", content)}, message, BRANCH)
        shas.append(parent)
    return shas


@pytest.fixture(scope="module")
def history(harness: Harness) -> list[str]:
    shas = _history(harness.settings.mirror_dir)
    assert len(shas) == N
    return shas


def _bisect(harness: Harness, out: Path, **opts: str) -> tuple[int, dict | None, str]:
    """(exit code, report.json, output) of `invoke bisect --good BASE --bad BRANCH ...`."""
    args = {"good": BASE, "bad": BRANCH, "workload": WORKLOAD, "metric": METRIC, "out": str(out), **opts}
    proc = harness.invoke("bisect", *[x for k, v in args.items() for x in (f"--{k}", v)])
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
    code, report, output = _bisect(harness, out)
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


def test_second_run_reuses_every_result(harness: Harness, first_run: dict, history: list[str], tmp_path: Path) -> None:
    code, report, output = _bisect(harness, tmp_path / "again")
    assert code == 0 and report is not None, output
    assert report["first_bad"]["sha"] == history[PLANTED]
    assert report["run"]["builds"] == 0
    assert {s["source"] for s in report["run"]["steps"]} == {"result cache"}
    assert [t["sha"] for t in report["tested"]] == [t["sha"] for t in first_run["report"]["tested"]]
    assert "first bad commit" in output and history[PLANTED] in output
    assert "build failed" in output


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
        sys.executable,
        "-m",
        "invoke",
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


SCRIPT = """
def run(loops):
    x = 0.0
    for i in range(loops * 5000):
        x = x + 1.5
    return x
"""


def test_script_workload(harness: Harness, first_run: dict, history: list[str], tmp_path: Path) -> None:
    script = tmp_path / "float_adds.py"
    script.write_text(SCRIPT)
    judged = {"threshold": "0.5", "direction": "down", "workload": str(script)}
    assert _bisect_run(harness, history[PLANTED - 1], **judged) == 0
    assert _bisect_run(harness, history[PLANTED], **judged) == 1


def test_good_on_another_branch_bisects_from_the_merge_base(
    harness: Harness, first_run: dict, history: list[str], tmp_path: Path
) -> None:
    side = make_commit(
        harness.settings.mirror_dir,
        history[3],
        {"Misc/side-branch.txt": ("100644", "side\n")},
        "a commit on a side branch",
        "test-bisect-side",
    )
    code, report, output = _bisect(harness, tmp_path / "side", good=side)
    assert code == 0, output
    assert "merge base" in output
    assert report["commits"][0] == history[3] and report["first_bad"]["sha"] == history[PLANTED]
