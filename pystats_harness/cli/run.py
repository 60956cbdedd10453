"""The run task: the built interpreter in a fresh, confined container, with a host script mounted, this
process's stdin fed to it when it is not a terminal, the ``invoke stats`` command for its dumps, and the
interpreter's own exit code told apart from the harness's (``interpreter exited N``, exit 33)."""

from __future__ import annotations

import sys
from pathlib import Path
from shlex import quote
from typing import IO

from invoke import Context as InvokeContext
from rich.markup import escape

from pystats_harness.builder.configurations import ConfigName
from pystats_harness.builder.obtain import existing, plan_for
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import REPAIRS_HELP, argv_after_double_dash, configuration, resolve
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.errors import InterpreterExited
from pystats_harness.infra.context import Context
from pystats_harness.infra.runner import RUN_UID, RunRequest, run_python
from pystats_harness.infra.script import ScriptRun, host_script


def host_stdin() -> IO[bytes] | None:
    """This process's stdin when it is not a terminal (a pipe, a file): what the interpreter reads."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return None
    return stream.buffer


def stats_command(dumps: Path, recipe: Recipe) -> str:
    """The command that turns a run's dumps into a collection: ``invoke stats DIR --rev REV``, with the
    revision as the user gave it (it names the opcodes of every version) and ``--patches`` unless auto."""
    patches = "" if recipe.patches == "auto" else f" --patches {quote(recipe.patches)}"
    return f"invoke stats {quote(str(dumps))} --rev {quote(recipe.commit.rev)}{patches}"


def run(ctx: Context, recipe: Recipe, script: ScriptRun, *, stats_dir: bool, stdin: IO[bytes] | None) -> None:
    """Run ``python3 ARGS`` of the cached build of ``recipe``; InterpreterExited when it exits non-zero."""
    entry = existing(ctx, plan_for(ctx, recipe))
    request = RunRequest(
        script.args,
        stats_dir=stats_dir,
        mounts=script.mounts,
        workdir=script.workdir,
        label="run",
        stdin=stdin,
        echo=True,
    )
    result = run_python(ctx, entry, request)  # its output shown as it comes
    if not result.echoed:  # the echo broke off: all of it, from the container's logs, rather than a part
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
    dumps = result.run_dir / "py_stats"
    if not stats_dir:
        ctx.reporter.info(escape(f"stats: no stats dir; output kept in {result.run_dir}"))
    else:
        ctx.reporter.info(escape(f"stats: {len(result.stats_files)} file(s) in {dumps}"))
        if result.stats_files:
            ctx.reporter.info(escape(f"to summarize them: {stats_command(dumps, recipe)}"))
    if result.exit_code:
        raise InterpreterExited(result.exit_code, result.run_dir)
    ctx.reporter.info("interpreter exited 0")


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision of a cached build (default: setting pystats.default_rev)",
        "patches": "the --patches the build was made with (default auto)",
        "config": "the configuration the build was made with; its run-time switch (e.g. -X uops) comes first",
        "no_stats_dir": "run without /tmp/py_stats (dumps then go to stderr)",
    }
)
def run_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: ConfigName | None = None,
    no_stats_dir: bool = False,
    repairs: str | None = None,
) -> None:
    """Run the built interpreter in a fresh, confined container: invoke run --rev REV -- ARGS...

    A host script among ARGS runs with its directory mounted read-only as the working directory; this
    process's stdin is the interpreter's when it is not a terminal; a non-zero exit of the interpreter
    is exit 33 with the line ``interpreter exited N``; a script the run's user cannot read, exit 34."""
    ctx = settings_of(c, repairs=repairs)
    name = configuration(ctx, config)
    script = host_script(argv_after_double_dash(), Path.cwd(), uid=RUN_UID)  # refused before any lookup
    run(ctx, Recipe(resolve(ctx, rev), patches, name), script, stats_dir=not no_stats_dir, stdin=host_stdin())
