"""The task layer as a user meets it: one clear line and a distinct exit code (no engine needed)."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

from tests.support.invoke_runner import invoke_env, run_invoke
from tests.support.invoke_runner import invoke_in as _invoke

ROOT = Path(__file__).resolve().parents[2]

#: Every task tasks.py defines, as typed on the command line; a task that disappears or is renamed fails here.
TASKS = {
    "mirror",
    "publish",
    "import-release",
    "image",
    "build",
    "run",
    "patches",
    "verify",
    "stats",
    "collect",
    "compare",
    "diff",
    "validate",
    "baseline",
    "bisect",
    "bisect-run",
    "cache",
    "cluster-local",
    "history",
    "results",
}


def _declared_tasks() -> dict[str, dict]:
    """What tasks.py declares, read from its invoke collection: for each task its command-line name, the
    first docstring line, its parameters after ``c`` and its ``help`` dict."""
    spec = importlib.util.spec_from_file_location("tasks_under_test", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as invoke loads it: tasks.py collects its own tasks
    spec.loader.exec_module(module)
    declared = {}
    for name, task in module.ns.tasks.items():
        params = list(inspect.signature(task.body).parameters)[1:]  # drop the context c
        doc = inspect.getdoc(task.body) or ""
        declared[name] = {
            "params": params,
            "help": dict(task.help),
            "helpline": doc.strip().splitlines()[0] if doc.strip() else "",
        }
    return declared


def _squash(text: str) -> str:
    """Text without any whitespace: invoke wraps help at word boundaries and after hyphens."""
    return "".join(text.split())


def test_tasks_py_declares_exactly_the_expected_tasks() -> None:
    assert set(_declared_tasks()) == TASKS


def test_list_has_one_line_help_for_every_task(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "--list")
    assert out.returncode == 0, out.stderr
    listed: dict[str, str] = {}
    name = None
    for line in out.stdout.splitlines()[1:]:  # after "Available tasks:"
        entry = re.match(r"^  (\S+)(?:\s+(.*))?$", line)
        if entry:  # "  name   help": a task; deeper-indented lines continue its wrapped help
            name = entry.group(1)
            listed[name] = entry.group(2) or ""
        elif line.strip():
            assert name is not None and line.startswith("    "), line
            listed[name] += " " + line.strip()
    assert set(listed) == TASKS
    declared = _declared_tasks()
    for name in sorted(TASKS):
        helpline = declared[name]["helpline"]
        assert helpline, f"task {name} has no docstring"
        assert listed[name].strip(), f"task {name} is listed without help"
        assert _squash(listed[name]) == _squash(helpline), f"{name}: {listed[name]!r} != {helpline!r}"


@pytest.mark.parametrize("name", sorted(TASKS))
def test_help_lists_every_option_with_its_help(tmp_path: Path, name: str) -> None:
    task = _declared_tasks().get(name)
    assert task is not None, f"tasks.py declares no task {name}"
    assert task["params"], f"task {name} declares no options"
    missing = [p for p in task["params"] if not str(task["help"].get(p, "")).strip()]
    assert not missing, f"task {name}: option(s) without help in tasks.py: {missing}"
    assert set(task["help"]) == set(task["params"]), f"task {name}: help for unknown option(s)"
    out = _invoke(tmp_path, "--help", name)
    assert out.returncode == 0, out.stderr
    options = out.stdout.split("\nOptions:\n", 1)
    assert len(options) == 2, out.stdout
    shown: dict[str, str] = {}
    flag = None
    for line in options[1].splitlines():
        option = re.match(r"^  (-\S.*?)(?:\s{2,}(.*))?$", line)
        if option:  # "  -r STRING, --rev=STRING   help": one option; deeper-indented lines continue its help
            longs = re.findall(r"--(?:\[no-\])?([a-z0-9][a-z0-9-]*)", option.group(1))  # --[no-]x: a bool on by default
            assert len(longs) == 1, line
            flag = longs[0]
            shown[flag] = option.group(2) or ""
        elif line.strip():
            assert flag is not None and line.startswith("    "), line
            shown[flag] += " " + line.strip()
    expected = {p.strip("_").replace("_", "-"): task["help"][p] for p in task["params"]}  # as invoke names them
    assert set(shown) == set(expected), out.stdout
    for flag, text in expected.items():
        assert shown[flag].strip(), f"invoke --help {name}: --{flag} has no help"
        assert _squash(shown[flag]) == _squash(text), f"invoke --help {name}: --{flag} shows {shown[flag]!r}"


def test_engine_unreachable_says_how_to_start_it(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "image", DOCKER_HOST="unix:///nonexistent/docker.sock")
    assert out.returncode == 5
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "dockerd" in lines[0]


def test_no_mirror(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "build", "--rev", "main")
    assert out.returncode == 10 and "invoke mirror" in out.stderr


def test_too_old_revision_is_refused(tmp_path: Path, git_repo) -> None:
    bare, shas = git_repo([{"configure.ac": "AC_INIT(python, 3.10)\n", "Python/ceval.c": ""}])
    assert _invoke(tmp_path, "mirror", "--remote", str(bare)).returncode == 0
    out = _invoke(tmp_path, "build", "--rev", shas[0][:10])
    assert out.returncode == 4
    assert "--enable-pystats" in out.stderr and "3.11.0a4" in out.stderr


def test_unknown_revision(tmp_path: Path, git_repo) -> None:
    bare, _ = git_repo([{"configure.ac": "enable-pystats\n"}])
    _invoke(tmp_path, "mirror", "--remote", str(bare))
    for rev in ("v0.0.0", "0" * 40):  # a full sha resolves lazily in git: it once ended in a traceback
        out = _invoke(tmp_path, "build", "--rev", rev)
        assert out.returncode == 3 and "not found in the mirror" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.parametrize(
    "args, says",
    [
        (("validate", "--jobs", "abc"), "error: --jobs 'abc' is not an integer"),
        (("compare", "a", "b", "--limit", "abc"), "error: --limit 'abc' is not an integer"),
        (("compare", "a", "b", "--nosuchflag"), "error: No idea what '--nosuchflag' is! (see `invoke --help compare`)"),
        (("validate", "-t", "1"), "error: No idea what '-t' is! (see `invoke --help validate`)"),
        (("stats",), "error: 'stats' did not receive required positional arguments: 'directory'"),
        (("build", "--rev"), "needed value and was not given one!"),
        (("--help", "nosuch"), "error: No idea what 'nosuch' is! (see `invoke --list`)"),
        (("build", "--config="), "error: unknown configuration ''"),
    ],
    ids=["not-an-int", "limit", "unknown-flag", "unknown-letter", "no-positional", "no-value", "help", "empty-config"],
)
def test_what_invoke_cannot_parse_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    """invoke's own parse errors exit 1, its kind conversion ends in a ValueError traceback: here both are
    a bad argument's line and code (cli/shell.parse_errors_in_one_line)."""
    out = _invoke(tmp_path, *args)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and says in lines[0], out.stderr
    assert not (tmp_path / "cache").exists()


def test_a_cache_directory_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    out = run_invoke("mirror", "--remote", str(tmp_path / "nowhere"), env=invoke_env(Path("/proc/pystats/cache")))
    assert out.returncode == 32 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("error: cannot create or write /proc/pystats"), out.stderr


def test_bad_setting(tmp_path: Path) -> None:
    out = _invoke(tmp_path, "build", INVOKE_PYSTATS_MAKE_JOBS="lots")
    assert out.returncode == 2 and "pystats.make_jobs" in out.stderr


def test_the_old_name_of_a_setting_still_works_with_a_warning(tmp_path: Path) -> None:
    """``jobs`` (make -j) is now ``make_jobs``: every task's --jobs means parallel containers."""
    old = _invoke(tmp_path, "build", INVOKE_PYSTATS_JOBS="lots")
    assert old.stderr.startswith("warning: setting pystats.jobs (INVOKE_PYSTATS_JOBS) is now pystats.make_jobs")
    assert old.returncode == 2 and "pystats.make_jobs='lots' is not an integer" in old.stderr
    both = _invoke(tmp_path, "build", INVOKE_PYSTATS_JOBS="2", INVOKE_PYSTATS_MAKE_JOBS="3")
    assert both.returncode == 2
    assert both.stderr.strip() == "error: setting pystats.jobs is the old name of pystats.make_jobs: set make_jobs only"


@pytest.mark.parametrize("task", ["validate", "baseline"])
@pytest.mark.parametrize("selection", [",", "nbody,nbdoy"], ids=["empty", "unknown"])
def test_a_workload_selection_that_checks_nothing_is_exit_2(tmp_path: Path, task: str, selection: str) -> None:
    out = _invoke(tmp_path, task, "--rev", "v3.13.5", "--workloads", selection)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert all(w in lines[0] for w in ("nbody", "strings", "leaky", "null")) and not out.stdout.strip()


def test_bad_release_tarball(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.xz"
    junk.write_text("nope")
    out = _invoke(tmp_path, "import-release", str(junk))
    assert out.returncode == 11 and "not a readable tar archive" in out.stderr


#: The tasks that build (or measure a build) in a named configuration: each declares --config once.
CONFIG_TASKS = ("build", "run", "verify", "validate", "baseline", "collect", "diff", "bisect", "bisect-run", "history")


@pytest.mark.parametrize("name", CONFIG_TASKS)
def test_every_building_task_takes_a_configuration(name: str) -> None:
    task = _declared_tasks()[name]
    assert "config" in task["params"] and "configuration" in task["help"]["config"]


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("build", "--config", "nonsense"), {}),
        (("run", "--config", "nonsense"), {}),
        (("build",), {"INVOKE_PYSTATS_CONFIG": "nonsense"}),
    ],
    ids=["build", "run", "setting"],
)
def test_an_unknown_configuration_is_exit_2_naming_the_known_ones(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str]
) -> None:
    out = _invoke(tmp_path, *args, **env)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert "unknown configuration 'nonsense'; known configurations: default, tier2, jit, freethreading" in lines[0]


def test_a_revision_that_cannot_build_the_configuration_is_refused_before_any_work(tmp_path: Path, git_repo) -> None:
    """A 3.11-like tree has no tier-2 optimizer: refused while planning (no image, no build needed)."""
    tree = Path(__file__).resolve().parents[1] / "data" / "trees" / "py311-pristine"
    files = {str(p.relative_to(tree)): p.read_text() for p in tree.rglob("*") if p.is_file()}
    bare, shas = git_repo([files])
    assert _invoke(tmp_path, "mirror", "--remote", str(bare)).returncode == 0
    out = _invoke(tmp_path, "build", "--rev", shas[0][:10], "--config", "tier2", DOCKER_HOST="unix:///nonexistent/x")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 29 and len(lines) == 1, out.stderr
    assert "cannot build configuration tier2 with pystats: configure.ac has no --enable-experimental-jit" in lines[0]


def test_the_docs_list_every_option_of_every_task() -> None:
    """docs/index.md's task tables are generated from the tasks (``invoke --help TASK``) and current."""
    from pystats_harness.cli import tables

    path = ROOT / "docs" / "index.md"
    text = path.read_text()
    assert tables.stale(text, tables.tables_of(path)) == [], f"run `{tables.PROG} --write docs/index.md`"
    for name, task in _declared_tasks().items():
        assert f"### `invoke {name}" in text, f"docs/index.md has no section for invoke {name}"
        for param in task["params"]:
            flag = param.strip("_").replace("_", "-")
            assert re.search(rf"--(\[no-\])?{flag}\b", text), f"docs/index.md: invoke {name} --{flag} is missing"


def test_one_letter_one_option_in_every_task() -> None:
    """A short flag means one option across all tasks, and an option of the vocabulary (``SHORT_FLAGS``)
    has its letter wherever a task has it; no other option gets a letter of its own."""
    import copy

    from pystats_harness.cli.collection import ns
    from pystats_harness.cli.shell import SHORT_FLAGS

    meaning: dict[str, set[str]] = {}
    for name, task in copy.deepcopy(ns).tasks.items():
        for argument in task.get_arguments():
            long = next(n for n in argument.names if len(n) > 1)
            short = [n for n in argument.names if len(n) == 1]
            lettered = long in SHORT_FLAGS and argument.name not in getattr(task, "renamed", {})  # an old name has none
            assert short == ([SHORT_FLAGS[long]] if lettered else []), (name, long, short)
            for letter in short:
                meaning.setdefault(letter, set()).add(long.removesuffix("s"))  # --workload(s): one meaning
    assert {letter: longs for letter, longs in meaning.items() if len(longs) > 1} == {}
    assert meaning["o"] == {"out"} and meaning["r"] == {"rev"} and meaning["n"] == {"dry-run"}


def test_an_old_option_name_still_works_with_a_warning(tmp_path: Path) -> None:
    """compare's and history's --threshold is now --min-change, bisect's --jobs --make-jobs: the old name
    means the new one (a warning says so); both at once are refused in one line, exit 2."""
    missing = [str(tmp_path / "base.json"), str(tmp_path / "head.json")]
    old = _invoke(tmp_path, "compare", "--base", missing[0], "--head", missing[1], "--threshold", "0.1")
    lines = old.stderr.strip().splitlines()
    assert lines[0] == "warning: --threshold is now --min-change; the old name still works, for now", lines
    assert old.returncode == 2 and "does not exist" in lines[1]  # then it goes on, as --min-change would
    both = _invoke(tmp_path, "history", "--threshold", "0.1", "--min-change", "0.2", "--from", "a", "--to", "b")
    assert both.returncode == 2
    assert both.stderr.strip().splitlines() == [
        "error: --threshold is the old name of --min-change: give --min-change only"
    ]
    assert (
        "| `--jobs=STRING` | old name of --make-jobs (same meaning; warns) |"
        in (ROOT / "docs" / "index.md").read_text()
    )
    loops = _invoke(tmp_path, "collect", "--loops", str(tmp_path / "loops.json"), "--config", "nosuch")  # a file
    assert loops.stderr.startswith("warning: --loops is now --loops-file; the old name still works, for now")
    assert loops.returncode == 2 and "unknown configuration 'nosuch'" in loops.stderr


def test_a_negative_make_jobs_is_refused_before_anything(tmp_path: Path) -> None:
    out = _invoke(
        tmp_path, "bisect", "--good", "a", "--bad", "b", "--workload", "nbody", "--metric", "x", "--make-jobs", "-1"
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == ["error: --make-jobs -1 is negative; use 0 for one job per core"]
