"""pystats-harness tasks. A thin shell: read settings, call one function, map errors to exit codes.

Every setting lives under ``pystats`` (see pystats_harness/config.py DEFAULTS); override it in
invoke.yaml or with INVOKE_PYSTATS_<KEY>. The work is done in pystats_harness.cli.
"""

from __future__ import annotations

import functools
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from invoke import Collection, Context, Exit, task

from pystats_harness.cli import common
from pystats_harness.cli import help as options


def _context(c: Context, *, verbose: bool = False) -> common.Context:
    return common.context(c.config.get("pystats", {}), verbose=verbose)


def _mapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn harness errors into one line on stderr and their exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
        try:
            return fn(*args, **kwargs)
        except (Exception, KeyboardInterrupt) as exc:
            mapped = common.error_exit(exc)
            if mapped is None:
                raise
            raise Exit(mapped[0], code=mapped[1]) from None

    return wrapper


def _sigterm_as_interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


@task(help=options.MIRROR)
@_mapped
def mirror(c: Context, remote: str | None = None) -> None:
    """Clone or update the bare CPython mirror in the cache directory."""
    from pystats_harness.cli import build as cli

    cli.mirror(_context(c), remote)


@task(name="import-release", help=options.IMPORT_RELEASE)
@_mapped
def import_release(c: Context, tarball: str) -> None:
    """Commit a CPython release tarball into the mirror as tag vX.Y.Z (offline sources)."""
    from pystats_harness.cli import build as cli

    cli.import_release(_context(c), Path(tarball))


@task(help=options.IMAGE)
@_mapped
def image(c: Context, bootstrap: bool = False) -> None:
    """Build the builder image from docker/Dockerfile."""
    from pystats_harness.cli import build as cli

    cli.image(_context(c), bootstrap=bootstrap)


@task(help=options.BUILD)
@_mapped
def build(
    c: Context, rev: str | None = None, patches: str = "auto", dry_run: bool = False, verbose: bool = False
) -> None:
    """Build (or find in the cache) a --enable-pystats interpreter for a revision."""
    from pystats_harness.cli import build as cli

    ctx = _context(c, verbose=verbose)
    cli.build(ctx, common.resolve(ctx, rev), patches, dry_run=dry_run)


@task(help=options.RUN)
@_mapped
def run(c: Context, rev: str | None = None, patches: str = "auto", no_stats_dir: bool = False) -> None:
    """Run the built interpreter in a fresh, confined container: invoke run --rev REV -- ARGS..."""
    from pystats_harness.cli import build as cli

    ctx = _context(c)
    args = common.argv_after_double_dash()
    code = cli.run(ctx, common.resolve(ctx, rev), patches, args, stats_dir=not no_stats_dir)
    if code:
        raise Exit(code=code)


@task(help=options.STATS)
@_mapped
def stats(
    c: Context,
    directory: str,
    rev: str | None = None,
    patches: str = "auto",
    json: str | None = None,
    markdown: str | None = None,
    loops: str | None = None,
    lenient: bool = False,
    summarize_json: str | None = None,
) -> None:
    """Turn a directory of dump files into one named collection."""
    from pystats_harness.cli import stats as cli

    per = common.number("loops", loops)
    ctx = _context(c)
    cli.stats(
        ctx,
        Path(directory),
        common.resolve(ctx, rev) if rev else None,
        patches,
        json_out=json,
        markdown_out=markdown,
        loops=per,
        lenient=lenient,
        summarize_json_out=summarize_json,
    )


@task(help=options.COMPARE)
@_mapped
def compare(
    c: Context,
    base: str,
    head: str,
    json: str | None = None,
    markdown: str | None = None,
    threshold: float = 0.0,
    family: bool = False,
    limit: int = 50,
    plot: str | None = None,
) -> None:
    """Compare two collections counter by counter, or two collect outputs benchmark by benchmark."""
    from pystats_harness.cli import stats as cli

    cli.compare(
        _context(c),
        Path(base),
        Path(head),
        json_out=json,
        markdown_out=markdown,
        threshold=common.number("threshold", threshold) or 0.0,
        family=family,
        limit=int(limit),
        plot=plot,
    )


@task(help=options.PATCHES)
@_mapped
def patches(c: Context, rev: str | None = None, patches: str = "auto") -> None:
    """Show which patches a revision needs (apply / already present / not applicable, and why)."""
    from pystats_harness.cli import build as cli

    ctx = _context(c)
    cli.show_patches(ctx, common.resolve(ctx, rev), patches)


@task(help=options.VERIFY)
@_mapped
def verify(c: Context, rev: str | None = None, patches: str = "auto") -> None:
    """Rerun the behaviour fingerprint on a cached build; non-zero exit on any mismatch."""
    from pystats_harness.cli import build as cli

    ctx = _context(c)
    cli.verify(ctx, common.resolve(ctx, rev), patches)


@task(help=options.VALIDATE)
@_mapped
def validate(
    c: Context,
    rev: str | None = None,
    patches: str = "auto",
    workloads: str | None = None,
    jobs: int = 2,
    out: str | None = None,
    require_baseline: bool = False,
    strict: bool = False,
) -> None:
    """Prove the stats of a build are reliable: fingerprint, canaries, leakage, isolation, baselines."""
    from pystats_harness.cli import validate as cli

    ctx = _context(c)
    report = cli.run_validate(ctx, rev, patches, workloads=workloads, jobs=int(jobs), out=out, strict=strict)
    error = report.error(require_baseline=require_baseline, strict=strict)
    if error is not None:
        raise error


@task(help=options.COLLECT)
@_mapped
def collect(
    c: Context,
    rev: str | None = None,
    patches: str = "auto",
    benchmarks: str = "default",
    jobs: int = 2,
    processes: int = 2,
    loops: str | None = None,
    out: str | None = None,
    no_manual: bool = False,
    strict: bool = False,
) -> None:
    """pystats for pyperformance benchmarks, each in its own container, with a trust verdict per benchmark."""
    from pystats_harness.cli import collect as cli

    ctx = _context(c)
    number = common.number
    outcomes = cli.run_collect(
        ctx,
        rev,
        patches,
        benchmarks=benchmarks,
        jobs=number("jobs", jobs, int),
        processes=number("processes", processes, int),
        loops=loops,
        out=out,
        manual=not no_manual,
    )
    cli.raise_for(outcomes, strict=strict)


@task(help=options.BASELINE)
@_mapped
def baseline(
    c: Context, rev: str | None = None, patches: str = "auto", workloads: str | None = None, jobs: int = 2
) -> None:
    """Record per-loop manual-path stats into configs/baselines/<python version>/<workload>.json."""
    from pystats_harness.cli import validate as cli

    ctx = _context(c)
    cli.run_baseline(ctx, rev, patches, workloads=workloads, jobs=int(jobs))


@task(help=options.BISECT)
@_mapped
def bisect(
    c: Context,
    good: str,
    bad: str,
    workload: str,
    metric: str,
    threshold: str | None = None,
    direction: str | None = None,
    loops: str | None = None,
    out: str | None = None,
    jobs: str | None = None,
) -> None:
    """Find the first commit between good and bad where a pystats metric changed."""
    from pystats_harness.cli import bisect as cli

    code = cli.bisect(
        _context(c),
        good=good,
        bad=bad,
        workload=workload,
        metric=metric,
        threshold=threshold,
        direction=direction,
        loops=loops,
        out=out,
        jobs=jobs,
    )
    if code:
        raise Exit(code=code)


@task(
    name="bisect-run",
    help=options.BISECT_RUN,
)
def bisect_run(
    c: Context,
    workload: str,
    metric: str,
    threshold: str | None = None,
    direction: str = "up",
    rev: str | None = None,
    loops: str | None = None,
) -> None:
    """For `git bisect run`: measure HEAD (or --rev); exit 0 good, 1 bad, 125 skip, 128 setup error."""
    from pystats_harness.cli import bisect as cli

    try:
        ctx = _context(c)
    except Exception as exc:
        mapped = common.error_exit(exc)
        if mapped is None:
            raise
        print(mapped[0], file=sys.stderr)
        raise Exit(code=128) from None
    code = cli.bisect_run(
        ctx, workload=workload, metric=metric, threshold=threshold, direction=direction, rev=rev, loops=loops
    )
    raise Exit(code=code)


@task(help=options.HISTORY, iterable=["metric"])
@_mapped
def history(
    c: Context,
    from_: str = "",
    to: str = "",
    workload: str | None = None,
    benchmarks: str | None = None,
    metric: list[str] | None = None,
    every: str | None = None,
    count: str | None = None,
    threshold: str | None = None,
    loops: str | None = None,
    out: str | None = None,
) -> None:
    """pystats across a range of commits (first parent): a table, a plot, change points with subjects."""
    from pystats_harness.cli import history as cli

    cli.history(
        _context(c),
        from_=from_,
        to=to,
        workload=workload,
        benchmarks=benchmarks,
        metric=metric,
        every=every,
        count=count,
        threshold=threshold,
        loops=loops,
        out=out,
    )


@task(name="cluster-local", help=options.CLUSTER_LOCAL)
@_mapped
def cluster_local(c: Context, workers: str = "2") -> None:
    """Start a Dask scheduler and N workers on this machine (each with its own cache) until Ctrl-C."""
    from pystats_harness.cli import cluster as cli

    cli.cluster_local(_context(c), workers)


@task(help=options.CACHE, positional=["action"])
@_mapped
def cache(
    c: Context,
    action: str,
    keep: str | None = None,
    max_size: str | None = None,
    older_than: str | None = None,
    dry_run: bool = False,
) -> None:
    """Show, verify or prune the build cache: invoke cache list|verify|prune [--keep N|--max-size S|--older-than D]."""
    from pystats_harness.cli import cache as cli

    code = cli.cache(
        _context(c),
        action,
        keep=common.number("keep", keep, int),
        max_size=max_size,
        older_than=common.number("older-than", older_than),
        dry_run=dry_run,
    )
    if code:
        raise Exit(code=code)


#: Every @task above, with the settings declared once in pystats_harness/config.py as its configuration.
ns = Collection.from_module(sys.modules[__name__], config={"pystats": dict(common.DEFAULTS)})
