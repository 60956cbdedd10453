from __future__ import annotations

import os
from pathlib import Path

from pystats_harness.builder.lanes import MAX_CHANGED, T0, age_unchanged, decide


def test_reuse_only_where_safe() -> None:
    assert decide({}, ["a"]) == (False, "new lane")
    assert decide({"ok": False, "sha": "x"}, ["a"])[0] is False
    assert decide({"ok": True, "sha": "x"}, None)[0] is False
    assert decide({"ok": True, "sha": "x"}, ["f"] * (MAX_CHANGED + 1))[0] is False
    assert decide({"ok": True, "sha": "x"}, ["configure", "Python/ceval.c"]) == (
        False,
        "the build configuration changed (configure)",
    )
    ok, reason = decide({"ok": True, "sha": "abcdef1234567"}, ["Python/specialize.c"])
    assert ok and "1 file(s) changed since abcdef1234" in reason


def test_age_unchanged_keeps_changed_files_new(tmp_path: Path) -> None:
    (tmp_path / "Python").mkdir()
    for rel in ("Python/a.c", "Python/b.c", "configure", ".git"):
        (tmp_path / rel).write_text("x")
    aged = age_unchanged(tmp_path, {"Python/b.c"})
    assert aged == 2
    assert os.stat(tmp_path / "Python/a.c").st_mtime == T0 and os.stat(tmp_path / "configure").st_mtime == T0
    assert os.stat(tmp_path / "Python/b.c").st_mtime > T0
    assert os.stat(tmp_path / ".git").st_mtime > T0  # the worktree's link file is left alone
