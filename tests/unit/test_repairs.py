"""Repairs on small synthetic repositories: which lines of a fix are stats, which later commit fixes a
failed build, and what a repaired tree looks like (real git, no engine)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pystats_harness.builder import hunks, repairs
from pystats_harness.builder.upstream import Kind
from pystats_harness.errors import BuildFailed
from pystats_harness.infra.apply import applicable, apply_patches
from pystats_harness.infra.mirror import Mirror
from tests.support.repo import make_repo

PYSTATS_H = """typedef struct _gc_stats {
    uint64_t collections;
    uint64_t object_visits;
    uint64_t objects_collected;
} GCStats;
"""
PYTHON_H = '#include "cpython/pystats.h"\n'
GC_C = """#include "Python.h"

static int
gc_collect_young(int n)
{
    int count = n;
#ifdef Py_STATS
    count++;
#endif
    return count;
}

static int
untouched(void)
{
    return 1;
}
"""
BROKEN = GC_C.replace("    count++;\n", "    count++;\n    GC_STAT_ADD(0, objects_queued, count);\n")
# The fix removes the stats line and, in the same hunk, changes non-stats code; a later hunk is non-stats only.
FIXED = GC_C.replace("    int count = n;", "    int count = n + 0;").replace("return 1;", "return 2;")
LOG = """\
../src/Python/gc.c:9:24: error: ‘GCStats’ {aka ‘struct _gc_stats’} has no member named ‘objects_queued’
make: *** [Makefile:2963: Python/gc.o] Error 1
"""


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Mirror, list[str]]:
    """0 builds; 1 breaks the pystats build in gc.c; 2 unrelated; 3 touches gc.c's non-stats code only;
    4 fixes it (with non-stats changes of its own, and a stats line in a file that did not fail); 5 a
    non-stats break; 6 its fix."""
    path, shas = make_repo(
        tmp_path_factory.mktemp("repairs") / "repo.git",
        [
            {"Include/Python.h": PYTHON_H, "Include/cpython/pystats.h": PYSTATS_H, "Python/gc.c": GC_C},
            {"Python/gc.c": BROKEN},
            {"Objects/abstract.c": "/* unrelated */\n"},
            {"Python/gc.c": BROKEN.replace("return 1;", "return 1; /* still 1 */")},
            {
                "Python/gc.c": FIXED,
                "Python/specialize.c": "#ifdef Py_STATS\nSTAT_INC(x);\n#endif\n",
                "Include/cpython/pystats.h": PYSTATS_H.replace("collections;", "collections;\n    uint64_t queued;"),
            },
            {"Objects/floatobject.c": "this is not C;\n"},
            {"Objects/floatobject.c": "/* C again */\n"},
        ],
    )
    return Mirror(path), shas


def test_only_stats_lines_are_taken() -> None:
    diff = (
        "diff --git a/Python/gc.c b/Python/gc.c\nindex 1111111..2222222 100644\n--- a/Python/gc.c\n+++ b/Python/gc.c\n"
        "@@ -5,6 +5,5 @@ gc_collect_young(int n)\n {\n-    int count = n;\n+    int count = n + 0;\n"
        " #ifdef Py_STATS\n     count++;\n-    GC_STAT_ADD(0, objects_queued, count);\n #endif\n"
    )
    selection = hunks.select(diff, lambda p: True, lambda p: BROKEN, repairs.load().stats)
    assert selection.paths == ("Python/gc.c",)
    text = selection.text
    assert "-    GC_STAT_ADD(0, objects_queued, count);" in text
    assert "+    int count = n + 0;" not in text and "     int count = n;" in text  # non-stats: context
    assert selection.files[0].lines == 1 and selection.files[0].left == 2
    assert "@@ -5,6 +5,5 @@" in text


def test_a_line_in_a_py_stats_block_is_stats_without_naming_it() -> None:
    rules = repairs.load().stats
    marks = hunks.stats_regions(BROKEN, rules)
    lines = BROKEN.splitlines()
    assert marks[lines.index("    count++;") + 1] is True
    assert marks[lines.index("    return count;") + 1] is False


def test_compile_errors_name_files_and_identifiers() -> None:
    failure = repairs.compile_failure(LOG)
    assert failure.files == ("Python/gc.c",)
    assert "objects_queued" in failure.names and "GCStats" in failure.names


def test_the_search_finds_the_fix_and_takes_its_stats_lines(history: tuple[Mirror, list[str]]) -> None:
    mirror, shas = history
    broken = mirror.resolve(shas[2])
    found = repairs.candidates(mirror, broken, repairs.compile_failure(LOG))
    assert [c.sha for c in found] == [shas[4]]  # 3 touches gc.c but has no stats line
    repair = found[0]
    assert repair.kind is Kind.REPAIR
    # gc.c failed; pystats.h is a header it includes (through Python.h); specialize.c did not fail
    assert repair.paths == ("Include/cpython/pystats.h", "Python/gc.c")
    assert "specialize.c" not in repair.text and "return 2;" not in repair.text and "n + 0" not in repair.text
    assert repair.describe() == f"repaired with upstream {shas[4][:10]} (Include/cpython/pystats.h, Python/gc.c)"
    assert repair.left_out == 4  # gc.c: the changed lines of its non-stats code (two in each hunk)


def test_the_repaired_tree_changes_stats_lines_only(history: tuple[Mirror, list[str]], tmp_path: Path) -> None:
    mirror, shas = history
    broken = mirror.resolve(shas[3])
    repair = repairs.candidates(mirror, broken, repairs.compile_failure(LOG))[0]
    patch = tmp_path / repair.file_name
    patch.write_text(repair.text)
    with mirror.worktree(broken.sha, tmp_path / "wt") as tree:
        apply_patches(tree, [patch])
        gc = (tree / "Python/gc.c").read_text()
    assert gc == BROKEN.replace("return 1;", "return 1; /* still 1 */").replace(
        "    GC_STAT_ADD(0, objects_queued, count);\n", ""
    )


def test_a_hunk_that_does_not_fit_the_revision_is_left_out(history: tuple[Mirror, list[str]]) -> None:
    mirror, shas = history
    fix = mirror.resolve(shas[4])
    target = mirror.resolve(shas[0])  # has no objects_queued line: gc.c's stats hunk does not apply
    repair = repairs.from_fix(mirror, target, fix, lambda p: True, repairs.load(), "test")
    assert repair is not None and "Python/gc.c" not in repair.paths
    assert applicable(mirror.path, target.sha, [repair.text]) == [True]


def test_a_break_that_is_not_stats_is_not_repaired(history: tuple[Mirror, list[str]]) -> None:
    mirror, shas = history
    log = "../src/Objects/floatobject.c:1:1: error: unknown type name ‘this’\n"
    assert repairs.candidates(mirror, mirror.resolve(shas[5]), repairs.compile_failure(log)) == []


def test_a_known_window_is_planned_before_any_build(history: tuple[Mirror, list[str]], tmp_path: Path) -> None:
    mirror, shas = history
    window = repairs.Window("test", shas[1], shas[4], ("Python/gc.c",), "gc.c counts objects_queued")
    cfg = replace(repairs.load(), windows=(window,))
    inside = repairs.planned(mirror, mirror.resolve(shas[2]), "auto", tmp_path, cfg)
    assert inside is not None and inside.paths == ("Python/gc.c",) and "known window test" in inside.how
    assert repairs.planned(mirror, mirror.resolve(shas[4]), "auto", tmp_path, cfg) is None  # fixed
    assert repairs.planned(mirror, mirror.resolve(shas[0]), "auto", tmp_path, cfg) is None  # before
    assert repairs.planned(mirror, mirror.resolve(shas[2]), "none", tmp_path, cfg) is None  # --repairs none


def test_a_found_repair_is_planned_next_time(history: tuple[Mirror, list[str]], tmp_path: Path) -> None:
    mirror, shas = history
    broken = mirror.resolve(shas[2])
    found = repairs.candidates(mirror, broken, repairs.compile_failure(LOG))[0]
    found_dir = tmp_path / "repairs"  # made by the first record
    assert repairs.planned(mirror, broken, "auto", found_dir) is None
    repairs.remember(found_dir, broken, found)
    again = repairs.planned(mirror, broken, "auto", found_dir)
    assert again is not None and again.text == found.text and again.digest == found.digest


def test_a_failed_build_says_no_repair_fits(tmp_path: Path) -> None:
    failed = BuildFailed(phase="make", commit="abc", status=2, log_tail=(), log_path=tmp_path / "log")
    failed.no_repair(("Objects/floatobject.c",), ())
    assert str(failed).endswith(
        "no upstream repair of Objects/floatobject.c fits: no later first-parent commit has stats lines there that apply"
    )
    assert failed.exit_code == 7 and failed.repairs_tried == ()
