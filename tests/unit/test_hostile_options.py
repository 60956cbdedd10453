"""Random strings, numbers and paths for every option of every task: one line and an exit code from the
registry, never a traceback, and nothing in the cache changed.

The tasks run in this process (invoke's ``Program`` over the collection, as ``python3 -m invoke`` runs it,
parse errors included) so that hundreds of examples fit in seconds. The cache is a scratch one with a tiny
mirror; the Docker engine cannot be reached (input valid enough to start a build stops there, exit 5), and
the benchmark wheelhouse's directory cannot be made (input valid enough to need the benchmarks stops
there), so no example can build, download or run anything. PYSTATS_HOSTILE_EXAMPLES sets how many examples
run (400 by default, about five seconds; thousands to search harder).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invoke import Program

from pystats_harness.cli.collection import ns as tasks
from pystats_harness.exit_codes import BisectRunCode, ExitCode
from pystats_harness.paths import CachePaths

#: Tasks left out: ``mirror`` fetches from a remote, ``cluster-local`` starts processes.
LEFT_OUT = {"mirror", "cluster-local"}
#: Options left out: ``image --bootstrap`` would build the base image (the engine is unreachable anyway).
LEFT_OUT_OPTIONS = {("image", "bootstrap")}
#: Options a run writes a file or folder to: only these places, never random text (".", "~", "/" …).
OUTPUTS = {"out", "json", "markdown", "plot", "summarize-json"}
OUTPUT_PLACES = ["out", "/proc/pystats/o", "/nonexistent/o", "", "report.md"]
HOSTILE = [
    "",
    " ",
    "-1",
    "0",
    "1",
    "2.5",
    "1e999",
    "nan",
    "inf",
    "-inf",
    "99999999999999999999",
    "abc",
    "HEAD",
    "main",
    "v3.13.5",
    "main~3",
    "0" * 40,
    "a\nb",
    "--help",
    "-h",
    "default",
    "all",
    "nbody",
    "x,y",
    ",",
    "/proc/pystats",
    "/nonexistent/y",
    "../../etc",
    "$(touch /tmp/pystats-hostile)",
    "opcode.LOAD_ATTR.specialization.hit_ratio",
    "__import__('os')",
]
#: Values each option takes when used as meant, drawn half the time so that examples also get past the
#: first check (to the engine, the suite or the cache) with the other options random.
DUMPS = Path(__file__).resolve().parents[1] / "data" / "dumps" / "3.13.5" / "run1"
PLAUSIBLE = {
    "action": ["list", "verify", "prune"],
    "rev": ["main", "HEAD"],
    "good": ["main~1"],
    "bad": ["main"],
    "from": ["main~1"],
    "to": ["main"],
    "workload": ["nbody", "pyperformance:nbody"],
    "workloads": ["nbody", "default"],
    "benchmarks": ["nbody", "default"],
    "metric": ["opcode.LOAD_ATTR.specialization.hit_ratio", "instructions"],
    "config": ["default", "tier2"],
    "patches": ["auto", "none"],
    "directory": [str(DUMPS)],
    "base": [str(DUMPS)],
    "head": [str(DUMPS)],
    "direction": ["down", "up"],
    "keep": ["1", "0", "-1"],
    "max-size": ["1G", "0"],
    "older-than": ["1", "-5"],
    "jobs": ["1", "2"],
    "make-jobs": ["1"],
    "processes": ["2"],
    "loops": ["3"],
    "count": ["2"],
    "every": ["1"],
    "limit": ["5"],
    "threshold": ["0.1"],
    "min-change": ["0.1"],
    "llvm": ["19"],
}
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=24)
NUMBERS = st.one_of(st.integers(-(2**70), 2**70).map(str), st.floats(allow_nan=True).map(repr))
VALUES = st.one_of(st.sampled_from(HOSTILE), TEXT, NUMBERS)
REGISTRY = {0} | {int(code) for code in ExitCode}
#: bisect-run speaks git bisect run's protocol instead (a setup problem aborts, 128).
BISECT_RUN_REGISTRY = {int(code) for code in BisectRunCode}


@dataclass(frozen=True)
class Option:
    name: str
    is_flag: bool
    positional: bool


def options(task: str) -> list[Option]:
    return [
        Option(a.names[0], a.kind is bool, a.positional)
        for a in copy.deepcopy(tasks[task]).get_arguments()  # invoke pops each option's help as it reads it
        if (task, a.names[0]) not in LEFT_OUT_OPTIONS
    ]


TASKS = sorted(set(tasks.task_names) - LEFT_OUT)


#: Areas of the cache a task writes its answer to when its input is valid (``invoke publish`` with no
#: ``--out`` publishes the empty store's site): everything else must stay as it was.
ANSWERS = tuple(area.relative for area in CachePaths.answers())


def snapshot(root: Path) -> dict[str, str]:
    """Every file and directory under ``root`` (but ``ANSWERS``), with a digest of each file's content."""
    seen: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if any(rel == a or rel.startswith(f"{a}/") for a in ANSWERS):
            continue
        seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return seen


@dataclass
class Outcome:
    code: int
    stderr: str


def run_task(argv: list[str]) -> Outcome:
    """``invoke ARGV`` in this process: its exit code and standard error (anything else raised fails the test)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            Program(namespace=copy.deepcopy(tasks), binary="invoke").run(["invoke", *argv])  # a copy: see options()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return Outcome(code, err.getvalue())


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A scratch cache with a tiny mirror (a configure.ac that knows --enable-pystats, on ``main``), an
    unreachable engine, a wheelhouse directory that cannot be made, and a working directory of its own."""
    from tests.support.repo import make_repo

    root = tmp_path_factory.mktemp("hostile-options")
    bare, _ = make_repo(root / "origin.git", [{"configure.ac": "enable-pystats\n"}, {"README": "two\n"}])
    saved_env, saved_cwd, saved_term = dict(os.environ), Path.cwd(), signal.getsignal(signal.SIGTERM)
    os.environ.update(
        INVOKE_PYSTATS_CACHE_DIR=str(root / "cache"),
        INVOKE_PYSTATS_WHEELHOUSE_DIR="/proc/pystats-no-wheelhouse",
        DOCKER_HOST="unix:///nonexistent/docker.sock",
    )
    for name in [k for k in os.environ if k.startswith("INVOKE_PYSTATS_") and k not in _OURS]:
        del os.environ[name]
    (root / "cwd").mkdir()
    os.chdir(root / "cwd")
    try:
        assert run_task(["mirror", "--remote", str(bare)]).code == 0
        yield root
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        signal.signal(signal.SIGTERM, saved_term)  # the tasks set theirs (SIGTERM as Ctrl-C)


_OURS = {"INVOKE_PYSTATS_CACHE_DIR", "INVOKE_PYSTATS_WHEELHOUSE_DIR"}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    task = draw(st.sampled_from(TASKS))
    argv = [task]
    for option in options(task):
        if option.is_flag:
            if draw(st.booleans()):
                argv.append(f"--{option.name}")
            continue
        if not option.positional and draw(st.booleans()):
            continue
        if option.name in OUTPUTS:
            value = draw(st.sampled_from(OUTPUT_PLACES))
        elif option.name in PLAUSIBLE and draw(st.booleans()):
            value = draw(st.sampled_from(PLAUSIBLE[option.name]))
        else:
            value = draw(VALUES)
        argv.append(f"--{option.name}={value}")
    return argv


@settings(
    max_examples=int(os.environ.get("PYSTATS_HOSTILE_EXAMPLES", "400")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(argv=command_lines())
def test_any_options_of_any_task_end_in_one_line_and_a_registered_code(scratch: Path, argv: list[str]) -> None:
    cache = scratch / "cache"
    before = snapshot(cache)
    outcome = run_task(argv)
    assert outcome.code in (BISECT_RUN_REGISTRY if argv[0] == "bisect-run" else REGISTRY), (argv, outcome)
    assert "Traceback" not in outcome.stderr, (argv, outcome.stderr)
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("error:", "bisect-run: error:"))]
    # bisect-run's bad and skip are verdicts for git bisect, printed with their reason on stdout, not errors
    verdict = argv[0] == "bisect-run" and outcome.code in (BisectRunCode.BAD, BisectRunCode.SKIP)
    if outcome.code != 0 and not verdict:  # progress lines ("» benchmark wheelhouse") may come first; the error
        assert len(errors) == 1 and lines[-1] == errors[0], (argv, outcome.stderr)  # is one, and last
    if verdict:
        assert not errors, (argv, outcome.stderr)
    after = snapshot(cache)
    if verdict:  # a verdict is recorded as a bisect step in the results store, whole
        after = {k: v for k, v in after.items() if k != "results" and not k.startswith("results/")}
        before = {k: v for k, v in before.items() if k != "results" and not k.startswith("results/")}
    assert after == before, argv
    assert not Path("/tmp/pystats-hostile").exists()
