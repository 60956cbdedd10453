"""Repairs with real builds: a stats-only build break planted on top of v3.13.5 and, two commits later,
its fix; the revision in between is built with the fix's stats lines. A break that is not stats stays
unrepaired."""

from __future__ import annotations

import json
from pathlib import Path

from pystats_harness.infra.mirror import Mirror
from tests.support.invoke_runner import Harness
from tests.support.repo import commit_files

BRANCH = "test-repair-history"
STAT = "    GC_STAT_ADD(generation, collections, 1);\n"
QUEUED = "    GC_STAT_ADD(generation, objects_queued, 1);\n"  # GCStats has no such member: gc.c does not compile
ASIDE = "/* repair test: a change the repair leaves out */\n"


def planted(mirror_dir: Path) -> list[str]:
    """v3.13.5, then: 1 the stats-only break in gc.c; 2 an unrelated comment; 3 the fix (with a non-stats
    change of gc.c); 4 another comment. The same shas in every session (fixed dates)."""
    mirror = Mirror(mirror_dir)
    base = mirror.resolve("v3.13.5").sha
    gc = mirror.read_file(base, "Python/gc.c") or ""
    abstract = mirror.read_file(base, "Objects/abstract.c") or ""
    assert gc.count(STAT) == 1
    shas = [base]
    for files, message in (
        ({"Python/gc.c": gc.replace(STAT, STAT + QUEUED)}, "planted: a stats-only build break"),
        ({"Objects/abstract.c": abstract + "/* repair test 2 */\n"}, "planted: unrelated"),
        ({"Python/gc.c": gc + ASIDE}, "planted: the fix"),
        ({"Objects/abstract.c": abstract + "/* repair test 4 */\n"}, "planted: after the fix"),
    ):
        changed = {path: ("100644", text) for path, text in files.items()}
        shas.append(commit_files(mirror_dir, shas[-1], changed, message, branch=BRANCH))
    return shas


def _build_dir(stdout: str) -> Path:
    return next(Path(line.split()[1]) for line in stdout.splitlines() if line.startswith("build "))


def test_a_stats_only_break_is_built_with_the_stats_lines_of_its_fix(harness: Harness) -> None:
    shas = planted(harness.settings.mirror_dir)
    broken, fix = shas[2], shas[3]
    # the first build finds the repair: a record from an earlier run of this test (the planted shas are
    # the same in every session, the test cache outlives a run) would make it a planned one
    (harness.settings.paths.repairs_found / f"{broken}.json").unlink(missing_ok=True)
    off = harness.invoke("build", "--rev", broken, "--dry-run", "--repairs", "none")
    assert off.returncode == 0 and "upstream" not in off.stdout
    out = harness.invoke("build", "--rev", broken)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert "does not compile with pystats (Python/gc.c)" in out.stderr
    manifest = json.loads((_build_dir(out.stdout) / "manifest.json").read_text())
    [repair] = manifest["upstream"]
    assert (repair["kind"], repair["sha"], repair["paths"]) == ("repair", fix, ["Python/gc.c"])
    assert repair["describe"] == f"repaired with upstream {fix[:10]} (Python/gc.c)"
    assert repair["left_out"] == 1  # the fix's non-stats line
    assert manifest["verification"]["ok"], manifest["fingerprint"]
    text = (_build_dir(out.stdout) / repair["file"]).read_text()
    assert "-" + QUEUED in text and "leaves out" not in text
    # found once, planned from then on: the patches task and the dry run show it, and the build is a hit
    shown = harness.invoke("patches", "--rev", broken)
    assert shown.returncode == 0 and f"repair: repaired with upstream {fix[:10]} (Python/gc.c)" in shown.stdout
    again = harness.invoke("build", "--rev", broken, "--dry-run")
    assert f"upstream   repaired with upstream {fix[:10]}" in again.stdout and "cache      hit" in again.stdout
    assert harness.invoke("build", "--rev", fix, "--dry-run").stdout.count("upstream ") == 0  # the fix builds as is


def test_a_break_that_is_not_stats_stays_unrepaired(harness: Harness) -> None:
    mirror_dir = harness.settings.mirror_dir
    mirror = Mirror(mirror_dir)
    base = mirror.resolve("v3.13.5").sha
    floats = mirror.read_file(base, "Objects/floatobject.c") or ""
    broken = commit_files(
        mirror_dir,
        base,
        {"Objects/floatobject.c": ("100644", floats + "this is not C;\n")},
        "planted: not C",
        branch="test-repair-not-stats",
    )
    commit_files(
        mirror_dir,
        broken,
        {"Objects/floatobject.c": ("100644", floats)},
        "planted: C again",
        branch="test-repair-not-stats",
    )
    out = harness.invoke("build", "--rev", broken)
    assert out.returncode == 7, out.stdout[-2000:] + out.stderr[-3000:]
    last = out.stderr.strip().splitlines()[-1]
    assert "no upstream repair of Objects/floatobject.c fits" in last
    assert "repaired" not in out.stdout
