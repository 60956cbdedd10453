"""The HTML format: the report's Markdown page as one self-contained HTML file, for a static site opened
from the file system (``invoke publish``). The style is inline; the page has no script and names no address
outside itself (no font, stylesheet or image from the network). Raw HTML in the Markdown is shown as text,
not passed through, and ``<http://…>`` is not made a link: what a run recorded (a reason, a revision) cannot
change the page. The title is the page's first ``# `` heading."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from pystats_harness.reports.report import Report

if TYPE_CHECKING:
    import markdown

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; }
th, td { border: 1px solid #d0d0d7; padding: .25em .55em; text-align: left; vertical-align: top; }
th { background: #f1f1f5; } tr:nth-child(even) td { background: #fafafc; }
code { font: .92em ui-monospace, monospace; background: #f1f1f5; padding: 0 .2em; }
a { color: #0b57d0; text-decoration: none; } a:hover { text-decoration: underline; }
img { max-width: 100%; height: auto; border: 1px solid #e4e4ea; }
nav { font-size: .9em; margin-bottom: 1em; color: #555; }
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
{body}
</body>
</html>
"""


def _converter() -> markdown.Markdown:
    import markdown  # only where a page is written: every report writer imports this module

    md = markdown.Markdown(extensions=["tables"], output_format="html")
    md.preprocessors.deregister("html_block")
    for pattern in ("html", "autolink", "automail"):
        md.inlinePatterns.deregister(pattern)
    return md


def title(text: str) -> str:
    """The page's first ``# `` heading, without Markdown's backslash escapes."""
    first = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "report")
    return re.sub(r"\\(.)", r"\1", first)


def render(report: Report) -> bytes | None:
    if report.markdown is None:
        return None
    body = _converter().convert(report.markdown)
    name = html.escape(title(report.markdown), quote=False)
    return TEMPLATE.format(title=name, style=STYLE.strip(), body=body).encode("utf-8")
