"""The behaviour fingerprint of fixed pystats (CPython 3.13 semantics), as data plus a judge.

The caller runs each `Probe` (`python *probe.argv` with `probe.env` added, /tmp/py_stats
present and empty or absent), records an `Observation`, and calls `judge`. Everything here
is pure; nothing runs a process.
"""

from __future__ import annotations

import enum
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rich.markup import escape
from rich.table import Table


class Expect(enum.StrEnum):
    """What a probe's process must leave behind."""

    NO_NONZERO_STATS = "no-nonzero-stats"
    NONZERO_STATS = "nonzero-stats"
    FILE_THEN_CLEARED = "file-then-cleared"
    STDERR_DUMP = "stderr-dump"


# Some work that executes (and specializes) plenty of bytecode.
WORK = textwrap.dedent("""\
    def _pystats_work(n):
        total = 0
        for i in range(n):
            total += i * 2
        return total
    for _ in range(50):
        _pystats_work(1000)
    """)

# on; work; off; then a normal exit: the exit dump must hold the work's counts.
SNIPPET_ON_WORK_OFF = "import sys\nsys._stats_on()\n" + WORK + "sys._stats_off()\n"

# A dump mid-run writes a file now and clears the counters: nothing is left for the exit dump.
SNIPPET_DUMP_MIDRUN = (
    "import sys, _opcode\nsys._stats_on()\n"
    + WORK
    + textwrap.dedent("""\
    sys._stats_off()
    result = sys._stats_dump()
    after = _opcode.get_specialization_stats() or {}
    left = sum(v for family in after.values() for v in family.values() if isinstance(v, int))
    print(f"DUMP_RESULT={result!r}")
    print(f"LEFT_AFTER_DUMP={left}")
    """)
)


@dataclass(frozen=True)
class Probe:
    id: str
    description: str
    argv: tuple[str, ...]  # arguments after the python executable
    env: Mapping[str, str] = field(hash=False)  # added to the environment
    stats_dir_present: bool  # whether STATS_DIR exists (empty) when the process starts
    expect: Expect


PROBES: tuple[Probe, ...] = (
    Probe(
        "plain", "-c pass leaves no non-zero stats (off at startup)", ("-c", "pass"), {}, True, Expect.NO_NONZERO_STATS
    ),
    Probe(
        "xoption",
        "-X pystats turns collection on at startup",
        ("-X", "pystats", "-c", "pass"),
        {},
        True,
        Expect.NONZERO_STATS,
    ),
    Probe(
        "env",
        "PYTHONSTATS=1 turns collection on at startup",
        ("-c", "pass"),
        {"PYTHONSTATS": "1"},
        True,
        Expect.NONZERO_STATS,
    ),
    Probe(
        "env-ignored-E",
        "PYTHONSTATS is ignored under -E",
        ("-E", "-c", "pass"),
        {"PYTHONSTATS": "1"},
        True,
        Expect.NO_NONZERO_STATS,
    ),
    Probe(
        "on-work-off",
        "_stats_on(); work; _stats_off(): the exit dump holds the work's counts",
        ("-c", SNIPPET_ON_WORK_OFF),
        {},
        True,
        Expect.NONZERO_STATS,
    ),
    Probe(
        "dump-midrun",
        "_stats_dump() writes a file now, returns True and clears the counters",
        ("-c", SNIPPET_DUMP_MIDRUN),
        {},
        True,
        Expect.FILE_THEN_CLEARED,
    ),
    Probe(
        "dir-missing",
        "without the stats directory the dump goes to stderr, exit 0",
        ("-X", "pystats", "-c", "pass"),
        {},
        False,
        Expect.STDERR_DUMP,
    ),
)


@dataclass(frozen=True)
class Observation:
    exit_code: int
    stdout: str
    stderr: str
    stats_files: Sequence[tuple[str, str]] = field(default_factory=tuple)  # (file name, text)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stats_files", tuple((str(n), str(t)) for n, t in self.stats_files))


@dataclass(frozen=True)
class ProbeVerdict:
    probe: Probe
    ok: bool
    observed: str  # a one-line summary of what happened
    problems: tuple[str, ...] = ()


_COUNTER = re.compile(r"^\s*(?P<key>\S.*?)\s*:\s*(?P<value>-?\d+)\s*$")


def nonzero_counters(text: str) -> int:
    """How many `key : N` / `key: N` lines have N > 0, not counting the constant
    `opcode[...].specializable : 1` markers."""
    count = 0
    for line in text.splitlines():
        m = _COUNTER.match(line)
        if m and int(m["value"]) > 0 and not m["key"].endswith(".specializable"):
            count += 1
    return count


def _markers(stdout: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in stdout.splitlines() if re.match(r"^[A-Z_]+=", line))


def _why_it_ended(stderr: str) -> str:
    """The line that says why a process ended: a fatal error's (``Fatal Python error: ...``, above the
    traceback of the crash), else the last line."""
    lines = stderr.strip().splitlines()
    fatal = [line for line in lines if line.startswith("Fatal Python error:")]
    return (fatal or lines[-1:] or [""])[0]


def judge(probe: Probe, obs: Observation) -> ProbeVerdict:
    nonzero_files = [name for name, text in obs.stats_files if nonzero_counters(text)]
    zero_files = len(obs.stats_files) - len(nonzero_files)
    stderr_counters = nonzero_counters(obs.stderr)
    observed = (
        f"exit {obs.exit_code}; {len(obs.stats_files)} file(s), {len(nonzero_files)} non-zero"
        f"{f', {zero_files} all-zero' if zero_files else ''}; stderr {stderr_counters} non-zero line(s)"
    )
    problems: list[str] = []
    if obs.exit_code != 0:
        problems.append(f"exit code {obs.exit_code}: {_why_it_ended(obs.stderr)[:120]}")
    if "Traceback (most recent call last)" in obs.stderr and obs.exit_code == 0:
        problems.append("traceback on stderr")
    if probe.expect != Expect.STDERR_DUMP and stderr_counters:
        problems.append("stats dumped on stderr")
    if probe.expect == Expect.NO_NONZERO_STATS and nonzero_files:
        problems.append(f"{len(nonzero_files)} file(s) with non-zero stats")
    elif probe.expect == Expect.NONZERO_STATS and not nonzero_files:
        problems.append("no file with non-zero stats")
    elif probe.expect == Expect.FILE_THEN_CLEARED:
        marks = _markers(obs.stdout)
        observed += f"; dump returned {marks.get('DUMP_RESULT', '?')}, left {marks.get('LEFT_AFTER_DUMP', '?')}"
        if len(nonzero_files) != 1:
            problems.append(f"{len(nonzero_files)} file(s) with non-zero stats, expected exactly 1")
        # 3.13+ returns True after writing; 3.12 (upstream and patched) returns None.
        if marks.get("DUMP_RESULT") not in ("True", "None"):
            problems.append(
                f"_stats_dump() returned {marks.get('DUMP_RESULT', 'nothing')}, expected True (or None on 3.12)"
            )
        if marks.get("LEFT_AFTER_DUMP") != "0":
            problems.append(f"counters not cleared after the dump ({marks.get('LEFT_AFTER_DUMP', '?')} left)")
    elif probe.expect == Expect.STDERR_DUMP:
        if not stderr_counters:
            problems.append("no stats on stderr")
        if obs.stats_files:
            problems.append("stats files written although the directory was missing")
    return ProbeVerdict(probe, not problems, observed, tuple(problems))


def to_rich(
    verdicts: Iterable[ProbeVerdict],
    *,
    only_mismatches: bool = False,
    title: str = "pystats behaviour fingerprint",
    exempt: Mapping[str, str] | None = None,
) -> Table:
    """The verdicts as a table; a probe in ``exempt`` (its configuration's reason) is shown as exempt."""
    table = Table(title=title, show_lines=True)
    for column in ("probe", "expected", "observed", "verdict"):
        table.add_column(column, no_wrap=column in ("probe", "expected"))
    for v in verdicts:
        if only_mismatches and v.ok:
            continue
        verdict = "[green]ok[/]" if v.ok else "[bold red]MISMATCH[/]\n" + escape("\n".join(v.problems))
        if exempt and v.probe.id in exempt:
            verdict = f"[yellow]exempt[/]: {escape(exempt[v.probe.id])}" + ("" if v.ok else "\n" + verdict)
        table.add_row(v.probe.id, v.probe.expect.value, escape(v.observed), verdict)
    return table
