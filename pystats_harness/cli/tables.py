"""The tables that mirror code, generated from it: the README's exit codes (from
:class:`~pystats_harness.exit_codes.ExitCode`) and settings (:data:`pystats_harness.config.SETTINGS`),
docs/validate.md's allowances (:func:`pystats_harness.measure.allowances.registry`) and docs/index.md's
tasks with every option (the invoke collection, :mod:`pystats_harness.cli.collection`, as ``invoke --help
TASK`` shows them).

Each table sits between ``<!-- BEGIN GENERATED <name> -->`` and ``<!-- END GENERATED <name> -->``::

    python3 -m pystats_harness.cli.tables --write README.md   # rewrite the tables
    python3 -m pystats_harness.cli.tables --check README.md   # exit 1 naming each stale table
    python3 -m pystats_harness.cli.tables --write docs/validate.md
    python3 -m pystats_harness.cli.tables --write docs/index.md
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pystats_harness.cli.collection import ns
from pystats_harness.collect.exactness import load_declared, load_machinery
from pystats_harness.config import SETTINGS, Setting
from pystats_harness.exit_codes import ExitCode
from pystats_harness.measure import allowances
from pystats_harness.measure.suiteconfig import load_suite

PROG = "python3 -m pystats_harness.cli.tables"


def _row(*cells: str) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def exit_codes_table() -> str:
    """code | meaning, one row per member of the registry, in order."""
    rows = [_row(str(code.value), code.meaning) for code in sorted(ExitCode)]
    return "\n".join(["| code | meaning |", "|---:|---|", *rows])


def shown_default(setting: Setting) -> str:
    """The default as the table shows it: its own words, a bare number or boolean, else the value as code."""
    if setting.shown:
        return setting.shown
    if setting.default.isdigit() or setting.default in ("true", "false"):
        return setting.default
    return f"`{setting.default}`"


def settings_table() -> str:
    """setting | default | meaning, one row per setting, in the order they are declared."""
    rows = [_row(f"`{key}`", shown_default(setting), setting.meaning) for key, setting in SETTINGS.items()]
    return "\n".join(["| setting | default | meaning |", "|---|---|---|", *rows])


def allowances_table() -> str:
    """Every rule that lets a difference through or leaves a counter out, from the one registry."""
    return allowances.table(allowances.registry(load_suite(), load_declared(), load_machinery()))


#: Where each task is explained at length (docs/ pages).
MORE = {
    "patches": ("Patches", "patches.md"),
    "build": ("Builds and the cache", "builds-and-cache.md"),
    "verify": ("Builds and the cache", "builds-and-cache.md"),
    "run": ("how runs are confined", "builds-and-cache.md#runs-fresh-confined-containers"),
    "stats": ("Stats", "stats.md"),
    "compare": ("comparing two collects", "collect.md#comparing-two-collects"),
    "validate": ("Validate", "validate.md"),
    "baseline": ("Validate", "validate.md"),
    "collect": ("Collect", "collect.md"),
    "diff": ("Diff", "diff.md"),
    "bisect": ("Bisect", "bisect-history-scale-out.md"),
    "bisect-run": ("Bisect", "bisect-history-scale-out.md"),
    "history": ("History", "bisect-history-scale-out.md#history-pystats-over-a-range-of-commits"),
    "cluster-local": ("Scale-out", "bisect-history-scale-out.md"),
    "publish": ("Publish", "publish.md"),
    "cache": ("the cache", "builds-and-cache.md#the-cache-concurrent-invocations-and-what-happens-after-a-crash"),
}


def tasks_table() -> str:
    """Each task as ``invoke --help TASK`` shows it: how it is called, what it does, every option."""
    sections = []
    tasks = copy.deepcopy(ns)  # invoke pops each option's help off its task as it makes the parser
    for parser in tasks.to_contexts():
        name = str(parser.name)
        doc = " ".join((tasks.tasks[name].body.__doc__ or "").strip().split("\n\n")[0].split())
        title, page = MORE.get(name, ("", ""))
        more = f" More: [{title}]({page})." if page else ""
        call = " ".join(["invoke", name, *(str(a.name).upper() for a in parser.positional_args)])
        rows = [_row(f"`{flags}`", " ".join((text or "").split())) for flags, text in parser.help_tuples()]
        table = "\n".join(["| option | meaning |", "|---|---|", *rows])
        sections.append(f"### `{call}`\n\n{doc}{more}\n\n{table}")
    return "\n\n".join(sections)


TABLES: dict[str, Callable[[], str]] = {
    "exit-codes": exit_codes_table,
    "settings": settings_table,
    "allowances": allowances_table,
    "tasks": tasks_table,
}
#: The tables each file holds (by file name); a file not named here holds the README's.
FILES: dict[str, tuple[str, ...]] = {
    "README.md": ("exit-codes", "settings"),
    "validate.md": ("allowances",),
    "index.md": ("tasks",),
}
README = FILES["README.md"]


def tables_of(path: Path) -> tuple[str, ...]:
    return FILES.get(path.name, README)


def _block(name: str, text: str) -> tuple[int, int] | None:
    """Where the body of table ``name``'s one generated block is in ``text`` (None: no such block)."""
    begin, end = f"<!-- BEGIN GENERATED {name} -->\n", f"<!-- END GENERATED {name} -->"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        return None
    return text.index(begin) + len(begin), text.index(end)


def _body(table: Callable[[], str]) -> str:
    """A table between blank lines, so that the markers around it never join it."""
    return f"\n{table()}\n\n"


def rendered(text: str, names: tuple[str, ...] = README) -> str:
    """``text`` with every table's block rewritten; ValueError naming a table whose markers are missing."""
    for name in names:
        table = TABLES[name]
        where = _block(name, text)
        if where is None:
            raise ValueError(f"no <!-- BEGIN GENERATED {name} --> ... <!-- END GENERATED {name} --> block")
        text = f"{text[: where[0]]}{_body(table)}{text[where[1] :]}"
    return text


def stale(text: str, names: tuple[str, ...] = README) -> list[str]:
    """The tables whose block in ``text`` differs from what the code generates, or is missing."""
    blocks = {name: _block(name, text) for name in names}
    return [name for name, at in blocks.items() if at is None or text[at[0] : at[1]] != _body(TABLES[name])]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Rewrite or check the generated tables (README.md, docs/validate.md, docs/index.md)."
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", type=Path, metavar="README", help="rewrite the generated tables in place")
    action.add_argument("--check", type=Path, metavar="README", help="exit 1 naming each stale table")
    args = parser.parse_args(argv)
    path: Path = args.write or args.check
    text = path.read_text()
    if args.check:
        names = stale(text, tables_of(path))
        for name in names:
            print(
                f"{path}: the {name} table is stale (or its markers are missing); run `{PROG} --write {path}`",
                file=sys.stderr,
            )
        return ExitCode.FAILURE if names else ExitCode.SUCCESS
    try:
        new = rendered(text, tables_of(path))
    except ValueError as exc:
        print(f"{path}: {exc}; add the markers around the table", file=sys.stderr)
        return ExitCode.CONFIG_ERROR
    if new != text:
        path.write_text(new)
    print(f"{path}: the {' and '.join(tables_of(path))} tables {'rewritten' if new != text else 'were up to date'}")
    return ExitCode.SUCCESS


if __name__ == "__main__":
    sys.exit(main())
