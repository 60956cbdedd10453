"""Two collect outputs as a picture: benchmarks x opcode families, coloured by the change of the
specialization hit ratio (head - base). Needs matplotlib (Agg canvas, no pyplot state)."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.collect.compare import SuiteComparison, heat


def _label(meta: dict[str, object]) -> str:
    return f"{str(meta.get('revision', '?'))[:16]} (Python {meta.get('python_version', '?')})"


def write_heatmap(cmp: SuiteComparison, path: Path, metric: str = "hit_ratio") -> Path | None:
    """The PNG, or None when no family has the metric in both runs."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure
    from numpy import ma

    benchmarks, families, cells = heat(cmp, metric)
    if not families or not benchmarks:
        return None
    grid = ma.masked_invalid([[float("nan") if v is None else v for v in row] for row in cells])
    fig = Figure(figsize=(2 + 0.45 * len(families), 1.5 + 0.28 * len(benchmarks)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    image = ax.imshow(grid, cmap="RdBu", norm=TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0), aspect="auto")
    ax.set_xticks(range(len(families)), families, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(len(benchmarks)), benchmarks, fontsize=7)
    ax.set_title(f"{metric} change: {_label(dict(cmp.head))} − {_label(dict(cmp.base))}", fontsize=9)
    fig.colorbar(image, ax=ax, label=f"Δ {metric}; grey: one run only")
    ax.set_facecolor("0.85")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    tmp.replace(path)
    return path


def write_suite_comparison(
    cmp: SuiteComparison, *, json_out: str | None, markdown_out: str | None, plot: str | None
) -> tuple[str, Path | None]:
    """Two collect outputs' comparison as JSON, Markdown and a heatmap, where asked; the Markdown and the
    heatmap's path (None: not asked, or nothing to draw)."""
    from pystats_harness.collect.compare import to_markdown
    from pystats_harness.infra.fs import write_text_atomic

    markdown = to_markdown(cmp)
    if json_out:
        write_text_atomic(Path(json_out), cmp.to_json())
    if markdown_out:
        write_text_atomic(Path(markdown_out), markdown)
    return markdown, write_heatmap(cmp, Path(plot)) if plot else None
