"""A history's outputs: history.json, a rich table and history.md (every measured commit, each series —
a metric, or a metric at one benchmark —, flags where it moved), and history.png (a panel per metric,
a line per workload, change points marked)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from pystats_harness.history.driver import HistoryRun, short_label
from pystats_harness.history.select import ChangePoint
from pystats_harness.measure.axes import commit_ticks, fmt_value, wrap_name
from pystats_harness.measure.measurer import Measured

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCHEMA = "pystats-harness/history/2"


def _flag(run: HistoryRun, metric: str, pos: int) -> str:
    point = next((p for p in run.changes if p.metric == metric and p.after == pos), None)
    return "" if point is None else f" ({point.relative:+.1%})"


def to_dict(run: HistoryRun) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "workloads": [w.name for w in run.workloads],
        "configuration": run.configuration,
        "metrics": [m.expression for m in run.metrics],
        "series": [
            {"name": s.name, "metric": s.metric.expression, "workload": run.workloads[s.workload].name}
            for s in run.series
        ],
        "threshold": run.threshold,
        "range": {"from": run.path[0].sha, "to": run.path[-1].sha, "commits": len(run.path)},
        "run": {
            "workers": run.workers,
            "builds": run.builds,
            "sent_to_workers": run.sent,
            "wall_seconds": round(run.wall_seconds, 2),
        },
        "commits": [
            {
                "index": index,
                "sha": row[0].commit.sha,
                "date": row[0].commit.date,
                "subject": row[0].commit.subject,
                "values": {s.name: run.values[s.name][pos] for s in run.series},
                "failure": run.failure(pos),
                "worker": row[0].worker,
                "source": row[0].source.value,
                "built": any(r.built for r in row),
                "upstream": row[
                    0
                ].upstream,  # "repaired with upstream 23e4f80ce2 (Python/gc.c)": a point of its own kind
            }
            for pos, (index, row) in enumerate(zip(run.picked, run.rows, strict=True))
        ],
        "change_points": [change_to_dict(run, p) for p in run.changes],
    }


def change_to_dict(run: HistoryRun, point: ChangePoint) -> dict[str, Any]:
    before, after = run.records[point.before].commit, run.records[point.after].commit
    skipped = run.picked[point.after] - run.picked[point.before] - 1
    return {
        "metric": point.metric,
        "from": before.sha,
        "at": after.sha,
        "subject": after.subject,
        "old": point.old,
        "new": point.new,
        "relative": point.relative,
        "unmeasured_between": skipped,  # > 0: bisect between "from" and "at" to find the commit
    }


def change_lines(run: HistoryRun) -> list[str]:
    """One line per change point: the commit, its subject, the move; a bisect hint across unmeasured ones."""
    lines = []
    for point in run.changes:
        row = change_to_dict(run, point)
        line = f"{row['at'][:12]} {row['subject'][:70]}: {point.metric} {fmt_value(point.old)} -> {fmt_value(point.new)} ({point.relative:+.1%})"
        if row["unmeasured_between"]:
            line += f"; {row['unmeasured_between']} commits unmeasured: invoke bisect --good {row['from'][:12]} --bad {row['at'][:12]}"
        lines.append(line)
    return lines


def _build_note(rec: Measured) -> str:
    """What a repaired (or otherwise upstream-changed) build adds to its commit's row."""
    return f" [{rec.upstream}]" if rec.upstream else ""


def _config_note(run: HistoryRun) -> str:
    return "" if run.configuration == "default" else f" (configuration {run.configuration})"


def to_rich(run: HistoryRun) -> Table:
    table = Table(title=f"history of {run.label}{_config_note(run)}: {len(run.picked)} of {len(run.path)} commits")
    for name in ("#", "commit", "subject", *(s.name for s in run.series)):
        table.add_column(name, overflow="fold")
    for pos, (index, rec) in enumerate(zip(run.picked, run.records, strict=True)):
        cells = []
        for s in run.series:
            value = run.values[s.name][pos]
            flag = _flag(run, s.name, pos)
            text = "—" if value is None else fmt_value(value)
            cells.append(f"[bold red]{text}{flag}[/]" if flag else text)
        subject = escape(rec.commit.subject[:50]) + (f"[yellow]{escape(_build_note(rec))}[/]" if rec.upstream else "")
        table.add_row(str(index), rec.commit.sha[:10], subject, *cells)
    return table


def to_markdown(run: HistoryRun) -> str:
    head = ["#", "commit", "subject", *(f"`{s.name}`" for s in run.series)]
    lines = [f"### pystats history of `{run.label}`{_config_note(run)}", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * len(head))
    for pos, (index, rec) in enumerate(zip(run.picked, run.records, strict=True)):
        cells = []
        for s in run.series:
            value = run.values[s.name][pos]
            flag = _flag(run, s.name, pos)
            cells.append(("—" if value is None else fmt_value(value)) + (f" **{flag.strip()}**" if flag else ""))
        subject = (rec.commit.subject[:60] + _build_note(rec)).replace("|", "\\|")
        lines.append(f"| {index} | `{rec.commit.sha[:10]}` | {subject} | " + " | ".join(cells) + " |")
    lines += ["", f"Change points (relative change above {run.threshold:.1%}):", ""]
    lines += [f"- {line}" for line in change_lines(run)] or ["- none"]
    return "\n".join(lines) + "\n"


def figure(run: HistoryRun) -> Figure:
    """One panel per metric over the commits (ticks on measured commits: short sha and date); change
    points in red (saved as a PNG by :mod:`pystats_harness.reports`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 2.6 * len(run.metrics) + 1), dpi=100)
    FigureCanvasAgg(fig)
    ticks, labels = commit_ticks(run.picked, [f"{run.path[i].sha[:7]}\n{run.path[i].date[:10]}" for i in run.picked])
    for row, metric in enumerate(run.metrics, start=1):
        ax = fig.add_subplot(len(run.metrics), 1, row)
        for series in (s for s in run.series if s.metric == metric):
            values = run.values[series.name]
            points = [(i, v) for i, v in zip(run.picked, values, strict=True) if v is not None]
            label = short_label(run.workloads[series.workload])
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", linewidth=1, label=label)
            repaired = [
                (i, v) for i, v, r in zip(run.picked, values, run.records, strict=True) if v is not None and r.upstream
            ]
            if repaired:  # points of their own kind: built with an upstream repair
                ax.scatter(
                    [i for i, _ in repaired],
                    [v for _, v in repaired],
                    marker="D",
                    s=80,
                    facecolors="none",
                    edgecolors="tab:orange",
                    linewidths=1.5,
                    zorder=4,
                    label=f"{label}: repaired build",
                )
            for change in (c for c in run.changes if c.metric == series.name):
                ax.scatter([run.picked[change.after]], [change.new], color="tab:red", zorder=3, s=60)
                sha = run.records[change.after].commit.sha[:8]
                ax.annotate(sha, (run.picked[change.after], change.new), fontsize=7)
        if len(run.workloads) > 1 or any(r.upstream for r in run.records):
            ax.legend(fontsize=7)
        ax.set_ylabel(wrap_name(metric.expression, 34), fontsize=8)
        ax.set_xticks(ticks, labels, fontsize=7)
        ax.set_xticks(run.picked, minor=True)  # every measured commit, unlabelled
        ax.grid(True, alpha=0.3)
    fig.axes[-1].set_xlabel(
        f"commit (first parent, oldest left): {len(run.picked)} of {len(run.path)} measured, {len(ticks)} labelled"
    )
    fig.tight_layout()
    return fig
