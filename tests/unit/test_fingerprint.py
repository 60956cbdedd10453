from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from pystats_harness.builder.fingerprint import (
    PROBES,
    Observation,
    judge,
    nonzero_counters,
    to_rich,
)

BY_ID = {p.id: p for p in PROBES}
ALL_ZERO_312 = "opcode[93].specializable : 1\nCalls to PyEval_EvalDefault: 0\nObject allocations: 0\n"
STARTUP = ALL_ZERO_312 + "    opcode[1].execution_count : 20\nopcode[0].pair_count[1] : 20\nGC[0] collections: 3\n"


def obs(files: Sequence[tuple[str, str]] = (), stdout: str = "", stderr: str = "", exit_code: int = 0) -> Observation:
    return Observation(exit_code, stdout, stderr, list(files))


def test_probe_table_is_well_formed() -> None:
    assert len(BY_ID) == len(PROBES)
    expects = {"no-nonzero-stats", "nonzero-stats", "file-then-cleared", "stderr-dump"}
    assert {p.expect for p in PROBES} == expects
    for p in PROBES:
        if "-c" in p.argv:
            compile(p.argv[p.argv.index("-c") + 1], p.id, "exec")
    assert BY_ID["env"].env == {"PYTHONSTATS": "1"} and not BY_ID["dir-missing"].stats_dir_present
    assert hash(BY_ID["env"])  # frozen and hashable despite the env mapping


def test_nonzero_counters() -> None:
    assert nonzero_counters(ALL_ZERO_312) == 0
    assert nonzero_counters(STARTUP) == 3
    assert nonzero_counters("Specialization stats:\nnot a counter\nx : -1\n") == 0


def test_no_nonzero_stats() -> None:
    assert judge(BY_ID["plain"], obs()).ok
    lenient = judge(BY_ID["plain"], obs([("a.txt", ALL_ZERO_312)]))
    assert lenient.ok and "1 all-zero" in lenient.observed
    bad = judge(BY_ID["plain"], obs([("a.txt", STARTUP)]))
    assert not bad.ok and bad.problems == ("1 file(s) with non-zero stats",)


def test_nonzero_stats() -> None:
    assert judge(BY_ID["xoption"], obs([("a.txt", STARTUP)])).ok
    assert judge(BY_ID["env"], obs([("a.txt", ALL_ZERO_312)])).problems == ("no file with non-zero stats",)
    crashed = judge(
        BY_ID["on-work-off"], obs(stderr="Traceback (most recent call last):\nAttributeError: _stats_on", exit_code=1)
    )
    assert not crashed.ok and "exit code 1: AttributeError: _stats_on" in crashed.problems[0]
    # v3.15.0rc1 --config tier2 (measured): the fatal error is named, not the crash's last frame
    fatal = (
        "Fatal Python error: effective_trace_length: No terminating instruction\nPython runtime state: initialized\n\n"
        'Current thread 0x00007feb97a63740 [python3] (most recent call first):\n  File "<string>", line 9 in <module>\n'
    )
    segv = judge(BY_ID["on-work-off"], obs(stderr=fatal, exit_code=139))
    assert segv.problems[0] == "exit code 139: Fatal Python error: effective_trace_length: No terminating instruction"
    noisy = judge(BY_ID["xoption"], obs([("a.txt", STARTUP)], stderr=STARTUP))
    assert noisy.problems == ("stats dumped on stderr",)


def test_file_then_cleared() -> None:
    good = "DUMP_RESULT=True\nLEFT_AFTER_DUMP=0\n"
    assert judge(BY_ID["dump-midrun"], obs([("a.txt", STARTUP)], stdout=good)).ok
    v = judge(
        BY_ID["dump-midrun"],
        obs([("a.txt", STARTUP), ("b.txt", STARTUP)], stdout="DUMP_RESULT=False\nLEFT_AFTER_DUMP=7\n"),
    )
    assert not v.ok and len(v.problems) == 3
    assert "returned False" in v.problems[1] and "7 left" in v.problems[2]


def test_stderr_dump() -> None:
    assert judge(BY_ID["dir-missing"], obs(stderr=STARTUP)).ok
    assert judge(BY_ID["dir-missing"], obs()).problems == ("no stats on stderr",)
    v = judge(BY_ID["dir-missing"], obs(stderr=STARTUP + "Traceback (most recent call last):\n"))
    assert v.problems == ("traceback on stderr",)


def test_render_table_marks_mismatches() -> None:
    verdicts = [judge(BY_ID["plain"], obs()), judge(BY_ID["xoption"], obs())]
    console = Console(record=True, width=200)
    console.print(to_rich(verdicts, only_mismatches=True))
    out = console.export_text()
    assert "MISMATCH" in out and "xoption" in out and "plain" not in out


def test_dump_returning_none_is_accepted_as_on_3_12() -> None:
    from pystats_harness.builder.fingerprint import PROBES, Observation, judge

    probe = next(p for p in PROBES if p.id == "dump-midrun")
    obs = Observation(0, "DUMP_RESULT=None\nLEFT_AFTER_DUMP=0\n", "", [("a.txt", "opcode[1].execution_count : 5\n")])
    assert judge(probe, obs).ok
