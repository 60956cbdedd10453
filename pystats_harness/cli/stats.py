"""The stats tasks: stats (dump files -> one named collection, optionally a summarize_stats.py JSON) and
compare (two collections -> a diff)."""

from __future__ import annotations

from pathlib import Path

from invoke import Context as InvokeContext

from pystats_harness.builder.obtain import existing, plan_for
from pystats_harness.builder.recipe import Recipe
from pystats_harness.cli.common import number, resolve
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.console import READING_WIDTH, stdout_console
from pystats_harness.errors import ConfigError
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.reports import output_file
from pystats_harness.stats import compare as _compare
from pystats_harness.stats import summary
from pystats_harness.stats.collection import Collection, dump_files, from_dump, load, per_loop
from pystats_harness.stats.dumps import parse_files
from pystats_harness.stats.outputs import write_collection, write_comparison
from pystats_harness.stats.summarize_json import summarize_json


def stats(
    ctx: Context,
    directory: Path,
    commit: CommitInfo | None,
    requested_patches: str,
    *,
    json_out: str | None,
    markdown_out: str | None,
    loops: float | None,
    lenient: bool,
    summarize_json_out: str | None = None,
) -> None:
    rev = commit.rev if commit else None
    if summarize_json_out and not commit:
        raise ConfigError(
            "--summarize-json needs --rev: the build's own tables name the opcodes and fill _defines; "
            "pass the revision whose build made the dumps"
        )
    entry = existing(ctx, plan_for(ctx, Recipe(commit, requested_patches))) if commit else None
    names = entry.names() if entry else None
    metadata = entry.stats_metadata(rev) if entry else ({"revision": rev} if rev else {})
    dump = parse_files(dump_files(directory), lenient=lenient)
    collection = from_dump(dump, names, metadata)
    collection = per_loop(collection, loops) if loops else collection
    export = summarize_json(dump, names, metadata) if summarize_json_out and names is not None else None
    write_collection(
        collection, export, json_out=json_out, markdown_out=markdown_out, summarize_json_out=summarize_json_out
    )
    show(ctx, collection, {"JSON": json_out, "Markdown": markdown_out, "summarize_stats JSON": summarize_json_out})


def show(ctx: Context, collection: Collection, written: dict[str, str | None]) -> None:
    """The summary (100 columns when not a terminal), what was written where, and the warnings."""
    out = stdout_console(fit=READING_WIDTH)
    out.print(summary.to_rich(collection))
    meta = collection.metadata
    out.print(f"{len(collection.counters):,} counters, {len(collection.unknown):,} unknown lines")  # files: line 1
    for what, where in written.items():
        if where:
            out.print(f"{what}: {where}", markup=False, soft_wrap=True)  # a path whole, to copy
    for warning in meta.get("warnings", [])[:10]:
        ctx.reporter.warn(str(warning))
    for name, files in list(meta.get("negative_counters", {}).items())[:10]:
        ctx.reporter.warn(f"{name} is below zero in {files} dump file(s): a uint64 that wrapped, read as value - 2**64")


def compare(
    ctx: Context,
    base: Path,
    head: Path,
    *,
    json_out: str | None,
    markdown_out: str | None,
    threshold: float,
    family: bool,
    limit: int,
    plot: str | None = None,
) -> None:
    if base.is_dir() or head.is_dir():
        compare_suites(base, head, json_out=json_out, markdown_out=markdown_out, threshold=threshold, plot=plot)
        return
    for p in (base, head):
        if not p.is_file():
            raise ConfigError(f"collection {p} does not exist; make one with `invoke stats DIR --json OUT`")
    comparison = _compare.compare(load(base), load(head), threshold=threshold, family_view=family)
    write_comparison(comparison, json_out=json_out, markdown_out=markdown_out, limit=limit)
    stdout_console().print(_compare.to_rich(comparison, limit))


def compare_suites(
    base: Path, head: Path, *, json_out: str | None, markdown_out: str | None, threshold: float, plot: str | None
) -> None:
    """Two `invoke collect` outputs: per benchmark x metric, interesting changes flagged, a heatmap."""
    from pystats_harness.collect import compare as suite_compare
    from pystats_harness.collect.heatmap import write_suite_comparison

    thresholds = suite_compare.Thresholds(ratio=threshold, count=threshold) if threshold else suite_compare.Thresholds()
    comparison = suite_compare.compare_outputs(base, head, thresholds)
    markdown, png = write_suite_comparison(comparison, json_out=json_out, markdown_out=markdown_out, plot=plot)
    out = stdout_console()
    out.print(markdown, markup=False, highlight=False)
    out.print(
        "; ".join(
            f"{what}: {where}"
            for what, where in (("JSON", json_out), ("Markdown", markdown_out), ("heatmap", png))
            if where
        )
    )


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "directory": "a directory of pystats dump files (*.txt), e.g. a run's py_stats dir",
        "rev": "the revision whose cached build made the dumps: names 3.11/3.12 opcode numbers and "
        "failure kinds (3.13+ dumps name their opcodes themselves)",
        "patches": "the --patches that build was made with (default auto)",
        "json": "write the collection (schema pystats-harness/1) here",
        "markdown": "write a Markdown summary here",
        "loops": "divide every counter by this number of benchmark loops",
        "lenient": "skip malformed lines with a warning instead of failing",
        "summarize_json": "also write the summarize_stats.py JSON (3.13 shape, opcodes named; raw counts) here; needs --rev",
    }
)
def stats_task(
    c: InvokeContext,
    directory: str,
    rev: str | None = None,
    patches: str = "auto",
    json: str | None = None,
    markdown: str | None = None,
    loops: str | None = None,
    lenient: bool = False,
    summarize_json: str | None = None,
) -> None:
    """Turn a directory of dump files into one named collection and show its summary."""
    per = number("loops", loops)
    ctx = settings_of(c)
    stats(
        ctx,
        Path(directory),
        resolve(ctx, rev) if rev else None,
        patches,
        json_out=output_file("--json", json),
        markdown_out=output_file("--markdown", markdown),
        loops=per,
        lenient=lenient,
        summarize_json_out=output_file("--summarize-json", summarize_json),
    )


@harness_task(
    help={
        "base": "base collection JSON (from invoke stats --json), or a base `invoke collect` output directory",
        "head": "head collection JSON, or a head `invoke collect` output directory",
        "plot": "two collect outputs: write a heatmap PNG (benchmarks x families, change of hit ratio) here",
        "json": "write the comparison as JSON here",
        "markdown": "write a Markdown table (pasteable into a CPython issue) here",
        "min_change": "hide counters whose relative change is below this fraction (e.g. 0.05); for two collect outputs: flag ratio moves and relative count changes of at least this (default 0.10 and 0.25)",
        "family": "compare family totals (base + specialized forms) instead of single opcodes",
        "limit": "rows to show (default 50)",
    },
    renamed={"threshold": "min_change"},
)
def compare_task(
    c: InvokeContext,
    base: str,
    head: str,
    json: str | None = None,
    markdown: str | None = None,
    min_change: str | None = None,
    family: bool = False,
    limit: int = 50,
    plot: str | None = None,
) -> None:
    """Compare two collections counter by counter, or two collect outputs benchmark by benchmark."""
    compare(
        settings_of(c),
        Path(base),
        Path(head),
        json_out=output_file("--json", json),
        markdown_out=output_file("--markdown", markdown),
        threshold=number("min-change", min_change) or 0.0,
        family=family,
        limit=int(limit),
        plot=output_file("--plot", plot),
    )
