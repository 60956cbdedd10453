"""A history's outputs: history.json, a rich table and history.md (every measured commit, each metric,
flags where it moved), and history.png (each metric over the commits, change points marked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from pystats_harness.bisect.report import fmt_value
from pystats_harness.history.driver import HistoryRun
from pystats_harness.history.select import ChangePoint

SCHEMA = "pystats-harness/history/1"


def _flag(run: HistoryRun, metric: str, pos: int) -> str:
    point = next((p for p in run.changes if p.metric == metric and p.after == pos), None)
    return "" if point is None else f" ({point.relative:+.1%})"


def to_dict(run: HistoryRun) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "workload": run.workload.name,
        "metrics": [m.expression for m in run.metrics],
        "threshold": run.threshold,
        "range": {"from": run.path[0].sha, "to": run.path[-1].sha, "commits": len(run.path)},
        "run": {"workers": run.workers, "builds": run.builds, "wall_seconds": round(run.wall_seconds, 2)},
        "commits": [
            {
                "index": index,
                "sha": rec.commit.sha,
                "date": rec.commit.date,
                "subject": rec.commit.subject,
                "values": {m.expression: run.values[m.expression][pos] for m in run.metrics},
                "failure": None if rec.outcome.usable else rec.outcome.reason,
                "worker": rec.worker,
                "built": rec.built,
            }
            for pos, (index, rec) in enumerate(zip(run.picked, run.records, strict=True))
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


def to_rich(run: HistoryRun) -> Table:
    table = Table(title=f"history of {run.workload.label}: {len(run.picked)} of {len(run.path)} commits")
    for name in ("#", "commit", "subject", *(m.expression for m in run.metrics)):
        table.add_column(name, overflow="fold")
    for pos, (index, rec) in enumerate(zip(run.picked, run.records, strict=True)):
        cells = []
        for m in run.metrics:
            value = run.values[m.expression][pos]
            flag = _flag(run, m.expression, pos)
            text = "—" if value is None else fmt_value(value)
            cells.append(f"[bold red]{text}{flag}[/]" if flag else text)
        table.add_row(str(index), rec.commit.sha[:10], rec.commit.subject[:50], *cells)
    return table


def to_markdown(run: HistoryRun) -> str:
    head = ["#", "commit", "subject", *(f"`{m.expression}`" for m in run.metrics)]
    lines = [f"### pystats history of `{run.workload.label}`", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * len(head))
    for pos, (index, rec) in enumerate(zip(run.picked, run.records, strict=True)):
        cells = []
        for m in run.metrics:
            value = run.values[m.expression][pos]
            flag = _flag(run, m.expression, pos)
            cells.append(("—" if value is None else fmt_value(value)) + (f" **{flag.strip()}**" if flag else ""))
        subject = rec.commit.subject[:60].replace("|", "\\|")
        lines.append(f"| {index} | `{rec.commit.sha[:10]}` | {subject} | " + " | ".join(cells) + " |")
    lines += ["", f"Change points (relative change above {run.threshold:.1%}):", ""]
    lines += [f"- {line}" for line in change_lines(run)] or ["- none"]
    return "\n".join(lines) + "\n"


def write_plot(run: HistoryRun, path: Path) -> Path:
    """One panel per metric over the commit index; change points in red."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 2.6 * len(run.metrics) + 1), dpi=100)
    FigureCanvasAgg(fig)
    for row, metric in enumerate(run.metrics, start=1):
        ax = fig.add_subplot(len(run.metrics), 1, row)
        points = [(i, v) for i, v in zip(run.picked, run.values[metric.expression], strict=True) if v is not None]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", color="tab:blue", linewidth=1)
        for change in (c for c in run.changes if c.metric == metric.expression):
            ax.scatter([run.picked[change.after]], [change.new], color="tab:red", zorder=3, s=60)
            ax.annotate(run.records[change.after].commit.sha[:8], (run.picked[change.after], change.new), fontsize=7)
        ax.set_ylabel(metric.expression[:50], fontsize=8)
        ax.grid(True, alpha=0.3)
    fig.axes[-1].set_xlabel(f"commit index (first parent, 0 = {run.path[0].sha[:10]})")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
