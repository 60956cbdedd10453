"""deviation.png (drawn here, saved by :mod:`pystats_harness.reports`): per workload, how much of its allowance (configs/suite.toml tolerances) the counter
that deviates most from the baseline used, that counter named. Needs matplotlib (Agg canvas)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pystats_harness.validate.baseline import AllowanceUse

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: bars of exact comparisons that differ (no allowance at all) are drawn this far out, hatched
OVER = 1.5
#: a bar at 0 (nothing differs) is drawn this wide, so that it stays visible
STUB = 0.01


def _count(value: float) -> str:
    """Counts per loop as people read them: 53,750 and 0.05."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def allowance_label(use: AllowanceUse | None) -> str:
    """What a bar says: the counter, how much of how much it was allowed (counts per loop)."""
    if use is None:
        return "no baseline"
    if use.counter is None:
        return f"exact (0 of 0): none of {use.compared} compared counters differs"
    if use.used is None:
        return f"{use.counter}: {_count(use.deviation)} of 0 allowed (compared exactly)"
    percent = use.used * 100
    share = f"{percent:.0f} %" if percent >= 10 else f"{percent:.2g} %"  # 0.12 %, not 0 %
    return f"{use.counter}: {_count(use.deviation)} of {_count(use.allowed)} allowed ({share})"


def bar_length(use: AllowanceUse | None) -> float:
    if use is None:
        return 0.0
    if use.used is None:
        return OVER
    return max(use.used, STUB)


def _color(use: AllowanceUse | None) -> str:
    if use is None:
        return "#999999"
    if use.used is None or use.used > 1:
        return "#c0392b"
    return "#2a9d3a" if use.used == 0 else "#d08c1f"


def figure(deviation: Mapping[str, AllowanceUse], workloads: Sequence[str], title: str) -> Figure:
    """One horizontal bar per workload: deviation / allowed of its worst counter, labelled."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    uses = [deviation.get(w) for w in workloads]
    fig = Figure(figsize=(10, 1.2 + 0.45 * len(workloads)), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    rows = range(len(workloads))
    lengths = [bar_length(u) for u in uses]
    bars = ax.barh(rows, lengths, color=[_color(u) for u in uses], height=0.6)
    for bar, use in zip(bars, uses, strict=True):
        if use is not None and use.used is None:
            bar.set_hatch("//")  # off the scale: nothing was allowed
    for row, length, use in zip(rows, lengths, uses, strict=True):
        ax.annotate(
            allowance_label(use), (length, row), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8
        )
    ax.axvline(1.0, color="0.3", linestyle="--", linewidth=1)
    ax.annotate(
        "allowed",
        (1.0, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(3, -10),
        textcoords="offset points",
        fontsize=8,
    )
    ax.set_yticks(list(rows), list(workloads), fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max([*lengths, 1.0]) * 2.6)  # room for the labels right of the bars
    ax.set_xlabel("allowance used by the worst counter (|value - baseline| / allowed; 1 = the tolerance)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
