"""suite/canary_trace.py: the loop trace line a canary run prints on a tracing build."""

from __future__ import annotations

from typing import Any

import pytest

from pystats_harness.suite import canary_trace


class FakeExecutor:
    def __init__(self, names: list[str]) -> None:
        self.names = names

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, i: int) -> tuple[str, int, int, int]:
        return (self.names[i], 0, 0, 0)


def loop(n: int) -> int:
    acc = 0
    for i in range(n):
        acc += i
    return acc


def test_the_loop_trace_is_read_past_start_and_up_to_jump_to_top(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    import _opcode

    names = ["_START_EXECUTOR", "_LOAD_FAST", "_JUMP_TO_TOP", "_EXIT_TRACE"]
    monkeypatch.setattr(_opcode, "get_executor", lambda code, offset: FakeExecutor(names), raising=False)
    found = canary_trace.loop_uops(loop)
    assert found is not None and found["uops"] == ["_LOAD_FAST", "_JUMP_TO_TOP"]
    canary_trace.report(loop)
    assert canary_trace.parse("other\n" + capsys.readouterr().out) == found


def test_no_executor_no_line(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    import _opcode

    def none(code: object, offset: int) -> None:
        raise ValueError("no executor at given byte offset")

    monkeypatch.setattr(_opcode, "get_executor", none, raising=False)
    canary_trace.report(loop)
    assert capsys.readouterr().out == "" and canary_trace.parse("") is None
    monkeypatch.delattr(_opcode, "get_executor", raising=False)
    assert canary_trace.loop_uops(loop) is None
