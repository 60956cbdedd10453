"""What a run shows, whatever the format: :class:`Report` (the JSON document, the Markdown page, a
figure drawn when a PNG is asked for) and :class:`Format` (the formats, each with its file suffix)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Format(enum.StrEnum):
    JSON = "json"
    MARKDOWN = "markdown"
    PNG = "png"
    HTML = "html"


@dataclass(frozen=True)
class Report:
    """One run as it is shown. ``files``: the formats this report is written in by default, each with
    its file name in a run folder (``{Format.JSON: "report.json", ...}``). ``data`` is the JSON
    document, ``markdown`` the page; ``figure`` draws the picture (only when a PNG is written: drawing
    costs), and returns None when there is nothing to draw."""

    files: Mapping[Format, str]
    data: Mapping[str, Any] | None = None
    markdown: str | None = None
    figure: Callable[[], Figure | None] | None = field(default=None, compare=False)
