"""`invoke results`: what the results store holds (docs/results.md): the runs, one run's units, one metric over
every stored run, and merging another machine's store."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from invoke import Context as InvokeContext
from rich.markup import escape
from rich.table import Table

from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.console import stdout_console
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.results import Point, RunRecord, RunSummary, Store, Task, queried


def _verdicts(counts: dict[str, int]) -> str:
    return ", ".join(f"{verdict} {n}" for verdict, n in counts.items()) or "-"


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


def _print_json(doc: Any) -> None:
    print(json.dumps(doc, indent=1, sort_keys=True))


def show_runs(runs: list[RunSummary], where: Path) -> None:
    table = Table(title=f"runs in {escape(str(where))}")
    for column in ("id", "task", "revision", "sha", "commit date", "config", "units", "verdicts"):
        table.add_column(column, justify="right" if column == "units" else "left")
    for r in runs:
        table.add_row(
            r.run_id[:12],
            r.task.value,
            escape(r.revision),
            r.sha[:10],
            r.commit_date[:10],
            escape(r.config),
            str(r.units),
            escape(_verdicts(dict(r.verdicts))),
        )
    out = stdout_console()
    out.print(table)
    out.print(f"{len(runs)} run(s); `invoke results --run ID` shows one")


def show_run(run: RunRecord) -> None:
    out = stdout_console()
    out.print(f"run {run.run_id}: {run.task.value} of {escape(run.revision)} ({run.sha}, {run.commit_date})")
    facts = {
        "config": run.config,
        "patches": ", ".join(run.patches) or "none",
        "recorded": f"{run.recorded_at} on {run.host}",
    }
    facts.update({"parents": ", ".join(p[:12] for p in run.parents)} if run.parents else {})
    for key, value in facts.items():
        out.print(f"  {key}: {escape(value)}")
    table = Table()
    for column in ("unit", "verdict", "loops", "counters", "reason"):
        table.add_column(column, justify="right" if column in ("loops", "counters") else "left")
    for u in run.units:
        reason = u.reason if len(u.reason) <= 160 else u.reason[:157] + "..."
        loops = "-" if u.loops is None else str(u.loops)
        table.add_row(escape(u.name), escape(u.verdict), loops, str(len(u.values)), escape(reason))
    out.print(table)


def show_series(points: list[Point], metric: str) -> None:
    table = Table(title=escape(metric))
    for column in ("revision", "sha", "commit date", "task", "unit", "verdict", "value", "run"):
        table.add_column(column, justify="right" if column == "value" else "left")
    for p in points:
        table.add_row(
            *(escape(p.revision), p.sha[:10], p.commit_date[:10], p.task.value, escape(p.unit)),
            *(escape(p.verdict), _value(p.value), p.run_id[:12]),
        )
    stdout_console().print(table)


def _task(task: str | None) -> Task | None:
    if not task:
        return None
    try:
        return Task(task)
    except ValueError:
        raise ConfigError(f"--task {task!r}: use one of {', '.join(t.value for t in Task)}") from None


def check_options(run: str | None, metric: str | None, benchmark: str | None, merge: str | None) -> None:
    given = [flag for flag, value in (("--run", run), ("--metric", metric), ("--merge", merge)) if value]
    if len(given) > 1:
        raise ConfigError(f"give one of {', '.join(given)}: each is a view of its own")
    if benchmark and not metric:
        raise ConfigError("--benchmark chooses the unit of a --metric; give --metric too")


def merge_store(ctx: Context, other: Path, *, as_json: bool) -> None:
    """Merge the store at ``other`` into this machine's; checked first, so a wrong path changes nothing."""
    Store.check(other)
    path = ctx.settings.paths.results_db
    with Store.open(path) as store:
        merged = store.merge(other)
    if as_json:
        _print_json(asdict(merged))
        return
    stdout_console().print(
        f"merged {escape(str(other))} into {escape(str(path))}: {merged.added} run(s) added, "
        f"{merged.already_there} already there, {merged.measurements_added} measurement(s) added"
    )


def results(
    ctx: Context,
    *,
    run: str | None,
    metric: str | None,
    benchmark: str | None,
    merge: str | None,
    task: str | None,
    as_json: bool,
) -> None:
    """`invoke results` (options as the task names them); reading makes no store where there is none."""
    check_options(run, metric, benchmark, merge)
    chosen = _task(task)
    if merge:
        merge_store(ctx, Path(merge), as_json=as_json)
        return
    path = ctx.settings.paths.results_db
    with Store.open(path, create=False) as store:
        if run:
            found = store.get(run)
            if as_json:
                _print_json({"run_id": found.run_id, **found.content(), **_facts(found)})
            else:
                show_run(found)
        elif metric:
            points = [p for p in store.series(metric, benchmark) if chosen is None or p.task is chosen]
            queried.remember(path, metric)  # `invoke publish` gives it a page
            if as_json:
                _print_json([p.to_dict() for p in points])
            else:
                show_series(points, metric)
        elif as_json:
            _print_json([r.to_dict() for r in store.runs(chosen)])
        else:
            show_runs(store.runs(chosen), path)


def _facts(run: RunRecord) -> dict[str, Any]:
    return {
        "revision": run.revision,
        "commit_date": run.commit_date,
        "recorded_at": run.recorded_at,
        "host": run.host,
        "extra": dict(run.extra),
    }


# The task (tasks.py lists it): options declared once, with their help, above the function it calls.


@harness_task(
    help={
        "run": "show one run's units and verdicts: its id or a unique prefix of it (the list's first column)",
        "metric": "print one metric over every stored run: a counter name, <prefix>.hit_ratio / .miss_ratio / "
        ".deopt_ratio, <x>.specialization.deferred_share, or a sum such as gc.*.collections (e.g. "
        "opcode.LOAD_ATTR.specialization.hit_ratio)",
        "benchmark": "with --metric: only this benchmark or workload (e.g. richards)",
        "task": "only runs of this task: validate, collect, diff, history or bisect",
        "merge": "merge another machine's store (a results.sqlite file) into this one; merging twice adds nothing",
        "json": "print JSON instead of tables",
    },
)
def results_task(
    c: InvokeContext,
    run: str | None = None,
    metric: str | None = None,
    benchmark: str | None = None,
    task: str | None = None,
    merge: str | None = None,
    json: bool = False,
) -> None:
    """What the results store holds: the runs (default), one run (--run), a metric over all runs (--metric), or merge another store (--merge)."""
    results(settings_of(c), run=run, metric=metric, benchmark=benchmark, merge=merge, task=task, as_json=json)
