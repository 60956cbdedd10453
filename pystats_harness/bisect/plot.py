"""A bisect as a picture: the metric over the tested commits, good/bad/skipped marked, the threshold,
and the first bad commit. Needs matplotlib (Agg canvas, no pyplot state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pystats_harness.bisect.judge import Direction, Verdict
from pystats_harness.bisect.report import BisectReport
from pystats_harness.measure.axes import commit_ticks, fmt_value, wrap_name

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _points(ax: Axes, report: BisectReport) -> None:
    r = report.result
    usable = [(t.index, t.value, t.status) for t in r.tested if t.value is not None]
    ax.plot([u[0] for u in usable], [u[1] for u in usable], color="0.75", linewidth=1, zorder=1)
    for status, color in ((Verdict.GOOD, "tab:green"), (Verdict.BAD, "tab:red")):
        pts = [u for u in usable if u[2] == status]
        if pts:
            xs, ys = [u[0] for u in pts], [u[1] for u in pts]
            ax.scatter(xs, ys, color=color, marker="o", zorder=3, label=f"{status} ({len(pts)})")
    if r.skipped:
        xs = [t.index for t in r.skipped]
        ax.scatter(
            xs,
            [0.03] * len(xs),
            transform=ax.get_xaxis_transform(),
            color="tab:orange",
            marker="x",
            zorder=3,
            label=f"skipped ({len(xs)})",
        )
    side = "above" if r.judge.direction is Direction.UP else "below"
    label = f"threshold {fmt_value(r.judge.threshold)} (bad {side})"
    ax.axhline(r.judge.threshold, color="0.4", linestyle="--", linewidth=1, label=label)


def _first_bad(ax: Axes, report: BisectReport) -> None:
    r = report.result
    info = report.info(r.earliest_bad)
    if r.exact:
        ax.axvline(r.earliest_bad, color="tab:red", alpha=0.4, linewidth=1)
        text = f"first bad: {info.sha[:10]}" + (f"\n{info.subject[:50]}" if info.subject else "")
    else:
        ax.axvspan(r.last_good + 0.5, r.earliest_bad + 0.5, color="tab:orange", alpha=0.15)
        text = f"first bad is one of {len(r.candidates)}\n#{r.last_good + 1}..#{r.earliest_bad}"
    box = {"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "0.8", "alpha": 0.9}
    ax.annotate(
        text,
        xy=(r.earliest_bad, 0.62),
        xycoords=ax.get_xaxis_transform(),
        xytext=(8, 0),
        textcoords="offset points",
        fontsize=8,
        va="center",
        bbox=box,
    )


def _axes(ax: Axes, report: BisectReport) -> None:
    r = report.result
    tested = sorted(r.tested, key=lambda t: t.index)
    ticks, labels = commit_ticks([t.index for t in tested], [f"{t.index}\n{t.sha[:7]}" for t in tested])
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_xticks([t.index for t in tested], minor=True)  # every tested commit, unlabelled
    ax.set_xlim(-0.5, len(r.commits) - 0.5)
    good = f" {report.good_rev}" if report.good_rev else ""
    bad = f" {report.bad_rev}" if report.bad_rev else ""
    ax.set_xlabel(
        f"commit index on the path ({len(r.commits)} commits; 0 = good{good}, {len(r.commits) - 1} = bad{bad})"
    )
    ax.set_ylabel(wrap_name(report.metric, 60), fontsize=8)
    on = f" on {report.workload}" if report.workload else ""
    ax.set_title(f"bisect{on}: {r.measurements} measured + 2 endpoints", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(True, alpha=0.3)


def figure(report: BisectReport) -> Figure:
    """The metric over the tested commits: good/bad/skipped marked, threshold, first bad (saved as a PNG
    by :mod:`pystats_harness.reports`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.8), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    _points(ax, report)
    _first_bad(ax, report)
    _axes(ax, report)
    fig.tight_layout()
    return fig
