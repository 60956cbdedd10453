"""A short history with a planted specialization change, for the bisect and cluster tests.

On top of the imported v3.13.5 (index 0, good) nine commits are made in the test mirror (fixed dates,
so the shas are the same in every session):

    1-4  comments in Objects/*.c (build, same stats)
    5    Python/specialize.c: _Py_Specialize_BinaryOp no longer specializes float additions
         (BINARY_OP_ADD_FLOAT) -> in nbody the share of BINARY_OP executions that are specialized
         hits drops from ~0.96 to ~0.72
    6    Objects/floatobject.c gets a line that is not C: make fails
    7    fixes it; 8-9 comments (9 = tip = bad)
"""

from __future__ import annotations

from pathlib import Path

from pystats_harness.infra.mirror import Mirror
from tests.support.repo import commit_files

BASE = "v3.13.5"
BRANCH = "test-bisect-history"
WORKLOAD = "nbody"
METRIC = "opcode.BINARY_OP.specialization.hit / family.BINARY_OP.execution_count"
PLANTED, BROKEN, N = 5, 6, 10  # indices on the path (0 = good = v3.13.5, 9 = bad)

#: The rule of 3.13's _Py_Specialize_BinaryOp that specializes float additions (the planted change removes it).
FLOAT_ADD_RULE = """            if (PyFloat_CheckExact(lhs)) {
                instr->op.code = BINARY_OP_ADD_FLOAT;
                goto success;
            }
"""
NOT_C = "this is not C;\n"

#: A script workload whose float additions the planted change leaves unspecialized.
SCRIPT = """
def run(loops):
    x = 0.0
    for i in range(loops * 5000):
        x = x + 1.5
    return x
"""


def planted_history(mirror_dir: Path) -> list[str]:
    """The series in the mirror at ``mirror_dir`` (branch :data:`BRANCH`): its N shas, BASE's first."""
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
        parent = commit_files(mirror_dir, parent, {path: ("100644", content)}, message, branch=BRANCH)
        shas.append(parent)
    assert len(shas) == N
    return shas
