"""What ``invoke stats`` and ``invoke compare`` show, as reports (:mod:`pystats_harness.reports`),
written where they are asked to (``--json``, ``--markdown``, ``--summarize-json``) or into a folder
(collection.json and summary.md): each file whole or not at all."""

from __future__ import annotations

from typing import Any

from pystats_harness.reports import Format, Report, write_files
from pystats_harness.stats import compare as _compare
from pystats_harness.stats import summary
from pystats_harness.stats.collection import Collection


def collection_report(collection: Collection, summarized: Collection | None) -> Report:
    """The collection (schema pystats-harness/1), and the Markdown summary of ``summarized`` (the same
    collection, or it per loop; None: no summary, e.g. nothing was counted)."""
    return Report(
        {Format.JSON: "collection.json", Format.MARKDOWN: "summary.md"},
        collection.to_dict(),
        None if summarized is None else summary.to_markdown(summarized),
    )


def write_collection(
    collection: Collection,
    export: dict[str, Any] | None,
    *,
    json_out: str | None,
    markdown_out: str | None,
    summarize_json_out: str | None,
) -> None:
    """The collection, its Markdown summary and the summarize_stats.py JSON, each where asked."""
    if json_out or markdown_out:
        write_files(collection_report(collection, collection), {Format.JSON: json_out, Format.MARKDOWN: markdown_out})
    if summarize_json_out and export is not None:
        write_files(Report({Format.JSON: "summarize.json"}, export), {Format.JSON: summarize_json_out})


def write_comparison(
    comparison: _compare.Comparison, *, json_out: str | None, markdown_out: str | None, limit: int
) -> None:
    """Two collections' comparison as JSON and as Markdown (its ``limit`` largest changes)."""
    report = Report(
        {Format.JSON: "comparison.json", Format.MARKDOWN: "comparison.md"},
        _compare.to_dict(comparison),
        _compare.to_markdown(comparison, limit),
    )
    write_files(report, {Format.JSON: json_out, Format.MARKDOWN: markdown_out})
