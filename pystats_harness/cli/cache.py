"""The cache task: list what the cache holds, verify entries against their recorded contents, prune."""

from __future__ import annotations

import sys
import time

from invoke import Context as InvokeContext
from rich.markup import escape
from rich.prompt import Confirm
from rich.table import Table

from pystats_harness.builder import integrity, prune
from pystats_harness.builder.cache import CacheEntry
from pystats_harness.cli.common import number
from pystats_harness.cli.shell import exit_with, harness_task, settings_of
from pystats_harness.console import stdout_console
from pystats_harness.errors import ConfigError, HarnessError
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context

ACTIONS = ("list", "verify", "prune")


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _space(ctx: Context) -> list[tuple[str, str, str]]:
    """(where, size, what it holds): every area of the cache (pystats_harness/paths.py), then ccache."""
    s = ctx.settings
    rows = [(f"{area.relative}/", prune.human(size), area.holds) for area, size in prune.area_sizes(s.paths)]
    where, holds = "ccache", f"compiled objects shared by every build (volume {s.ccache_volume})"
    try:
        size = engine.volume_size(ctx.docker, s.ccache_volume)
        rows.append((where, prune.human(size) if size is not None else "not created", holds))
    except HarnessError as exc:
        rows.append((where, f"unknown: {exc}", holds))
    return rows


def show(ctx: Context) -> None:
    entries = prune.inventory(ctx.settings)
    table = Table(title=f"builds in {ctx.settings.builds_dir}")
    columns = ("revision", "configuration", "sha", "patches", "python", "size", "created", "last used", "state", "key")
    for column in columns:
        table.add_column(column, justify="right" if column == "size" else "left")
    for e in entries:
        table.add_row(
            escape(e.revision),
            escape(e.configuration),
            e.sha[:10],
            ",".join(e.patches) or "-",
            e.python,
            prune.human(e.size),
            _when(e.created),
            _when(e.last_used),
            e.state.value,
            e.key,
        )
    out = stdout_console()
    out.print(table)
    total = sum(e.size for e in entries)
    out.print(f"{len(entries)} build(s), {prune.human(total)}")
    out.print(f"space in {escape(str(ctx.settings.cache_dir))}:")
    for where, size, holds in _space(ctx):
        out.print(f"  {escape(where):<18} {escape(size):>9}  {escape(holds)}")


def verify(ctx: Context) -> int:
    """Check every complete entry; a damaged one is marked invalid (the next build replaces it)."""
    out = stdout_console()
    damaged = 0
    for e in prune.inventory(ctx.settings):
        if e.state is not prune.State.OK:
            continue
        problems = integrity.check(CacheEntry(e.path))
        if not problems:
            out.print(f"ok       {e.key}  {escape(e.revision)}")
        elif [p.what for p in problems] == ["no record"]:
            out.print(f"unknown  {e.key}  {escape(e.revision)}: made before contents were recorded; rebuild to verify")
        else:
            damaged += 1
            integrity.invalidate(CacheEntry(e.path), problems)
            shown = "; ".join(str(p) for p in problems[:3]) + (
                f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
            )
            out.print(f"[bold red]damaged[/] {e.key}  {escape(e.revision)}: {escape(shown)}; marked invalid")
    return damaged


def confirmed(planned: prune.PruneResult, *, yes: bool) -> frozenset[str]:
    """The keys of the builds a prune may remove: the least recently used one alone needs no word; more
    need ``--yes`` or a "y" at a terminal (half or invalid entries go unasked). Refused (exit 2, nothing removed) without either."""
    keys = frozenset(e.key for e in planned.removed)
    sound = [e for e in planned.removed if e.state is prune.State.OK]  # a half or invalid entry goes unasked
    if len(sound) <= 1 or yes:
        return keys
    what = f"remove {len(sound)} builds ({prune.human(sum(e.size for e in sound))}): " + ", ".join(
        e.revision for e in sound
    )
    if not sys.stdin.isatty():
        raise ConfigError(f"prune would {what}; give --yes to remove them, or --dry-run to look first")
    if not Confirm.ask(f"{escape(what)}?", default=False, console=stdout_console()):
        raise ConfigError("prune not confirmed; nothing was removed")
    return keys


def run_prune(ctx: Context, policy: prune.Policy, *, dry_run: bool, yes: bool = False) -> None:
    planned = prune.prune(ctx.settings, policy, dry_run=True)
    result = planned if dry_run else prune.prune(ctx.settings, policy, only=confirmed(planned, yes=yes))
    out = stdout_console()
    verb = "would remove" if dry_run else "removed"
    for e in result.removed:
        out.print(f"{verb} {e.key}  {escape(e.revision)} ({prune.human(e.size)}, last used {_when(e.last_used)})")
    for e in result.in_use:
        out.print(f"kept    {e.key}  {escape(e.revision)}: in use by another invocation")
    extra = "".join(f", {name} {prune.human(size)}" for name, size in result.extra.items() if size)
    out.print(f"{verb} {len(result.removed)} build(s): {prune.human(result.freed)}{extra}")


def cache(
    ctx: Context,
    action: str,
    *,
    keep: int | None,
    max_size: str | None,
    older_than: float | None,
    dry_run: bool,
    yes: bool = False,
) -> int:
    """Exit status: 0, or 1 when verify found damaged entries (they are marked invalid)."""
    if action not in ACTIONS:
        raise ConfigError(f"unknown cache action {action!r}; use one of: {', '.join(ACTIONS)}")
    if action == "list":
        show(ctx)
    elif action == "verify":
        return ExitCode.FAILURE if verify(ctx) else ExitCode.SUCCESS
    else:
        size = prune.parse_size(max_size) if max_size else None
        run_prune(ctx, prune.Policy(keep=keep, max_size=size, older_than_days=older_than), dry_run=dry_run, yes=yes)
    return ExitCode.SUCCESS


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "action": "list: every build with size and last use, and the space of every area of the cache (runs, lanes, reports, sites, …) and of ccache; verify: check every build against its recorded contents, mark damaged ones invalid; prune: remove least recently used builds with their runs and reports",
        "keep": "prune: keep this many most recently used builds",
        "max_size": "prune: remove least recently used builds until the rest fits, e.g. 20G",
        "older_than": "prune: remove builds not used for this many days",
        "dry_run": "prune: show what would be removed and remove nothing",
        "yes": "prune: remove more than the least recently used build without asking (at a terminal it asks; "
        "elsewhere it is refused without --yes, exit 2)",
    },
    positional=["action"],
)
def cache_task(
    c: InvokeContext,
    action: str,
    keep: str | None = None,
    max_size: str | None = None,
    older_than: str | None = None,
    dry_run: bool = False,
    yes: bool = False,
) -> None:
    """Show, verify or prune the build cache: invoke cache list|verify|prune [--keep N|--max-size S|--older-than D]."""
    code = cache(
        settings_of(c),
        action,
        keep=number("keep", keep, int),
        max_size=max_size,
        older_than=number("older-than", older_than),
        dry_run=dry_run,
        yes=yes,
    )
    exit_with(code)
