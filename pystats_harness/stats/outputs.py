"""The files ``invoke stats`` and ``invoke compare`` write where they are asked to (``--json``,
``--markdown``, ``--summarize-json``): each written whole or not at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pystats_harness.infra.fs import write_json_atomic, write_text_atomic
from pystats_harness.stats import compare as _compare
from pystats_harness.stats import summary
from pystats_harness.stats.collection import Collection, save


def write_collection(
    collection: Collection,
    export: dict[str, Any] | None,
    *,
    json_out: str | None,
    markdown_out: str | None,
    summarize_json_out: str | None,
) -> None:
    """The collection (schema pystats-harness/1), its Markdown summary and the summarize_stats.py JSON."""
    if json_out:
        save(collection, Path(json_out))
    if markdown_out:
        write_text_atomic(Path(markdown_out), summary.to_markdown(collection))
    if summarize_json_out and export is not None:
        write_json_atomic(Path(summarize_json_out), export)


def write_comparison(
    comparison: _compare.Comparison, *, json_out: str | None, markdown_out: str | None, limit: int
) -> None:
    """Two collections' comparison as JSON and as Markdown (its ``limit`` largest changes)."""
    if json_out:
        write_text_atomic(Path(json_out), _compare.to_json(comparison))
    if markdown_out:
        write_text_atomic(Path(markdown_out), _compare.to_markdown(comparison, limit))
