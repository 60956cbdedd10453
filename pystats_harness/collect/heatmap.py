"""Two collect outputs as a picture: benchmarks x opcode families, coloured by the change of the
specialization hit ratio (head - base). Needs matplotlib (Agg canvas, no pyplot state); saved as a PNG
by :mod:`pystats_harness.reports`, with the comparison's JSON and Markdown (:func:`to_report`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pystats_harness.collect.compare import SuiteComparison, heat, to_markdown
from pystats_harness.reports import Format, Report, write_files

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _label(meta: dict[str, object]) -> str:
    return f"{str(meta.get('revision', '?'))[:16]} (Python {meta.get('python_version', '?')})"


def heatmap(cmp: SuiteComparison, metric: str = "hit_ratio") -> Figure | None:
    """The heatmap, or None when no family has the metric in both runs."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure
    from numpy import ma

    benchmarks, families, cells = heat(cmp, metric)
    if not families or not benchmarks:
        return None
    grid = ma.masked_invalid([[float("nan") if v is None else v for v in row] for row in cells])
    fig = Figure(figsize=(2 + 0.45 * len(families), 1.5 + 0.28 * len(benchmarks)), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    image = ax.imshow(grid, cmap="RdBu", norm=TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0), aspect="auto")
    ax.set_xticks(range(len(families)), families, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(len(benchmarks)), benchmarks, fontsize=7)
    ax.set_title(f"{metric} change: {_label(dict(cmp.head))} − {_label(dict(cmp.base))}", fontsize=9)
    fig.colorbar(image, ax=ax, label=f"Δ {metric}; grey: one run only")
    ax.set_facecolor("0.85")
    fig.tight_layout()
    return fig


def to_report(cmp: SuiteComparison) -> Report:
    return Report(
        {Format.JSON: "comparison.json", Format.MARKDOWN: "comparison.md", Format.PNG: "heatmap.png"},
        cmp.to_dict(),
        to_markdown(cmp),
        lambda: heatmap(cmp),
    )


def write_suite_comparison(
    cmp: SuiteComparison, *, json_out: str | None, markdown_out: str | None, plot: str | None
) -> tuple[str, Path | None]:
    """Two collect outputs' comparison as JSON, Markdown and a heatmap, where asked; the Markdown and the
    heatmap's path (None: not asked, or nothing to draw)."""
    report = to_report(cmp)
    written = write_files(report, {Format.JSON: json_out, Format.MARKDOWN: markdown_out, Format.PNG: plot})
    assert report.markdown is not None
    return report.markdown, written.get(Format.PNG)
