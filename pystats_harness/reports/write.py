"""Writing reports: each file whole or not at all (a reader sees the old file or the new one), the
formats rendered by their modules (``RENDERERS``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from pystats_harness.errors import ConfigError
from pystats_harness.infra.fs import check_output_dir, write_bytes_atomic
from pystats_harness.paths import run_folder
from pystats_harness.reports import as_html, as_json, as_markdown, as_png
from pystats_harness.reports.report import Format, Report

RENDERERS: Mapping[Format, Callable[[Report], bytes | None]] = {
    Format.JSON: as_json.render,
    Format.MARKDOWN: as_markdown.render,
    Format.PNG: as_png.render,
    Format.HTML: as_html.render,
}


def write_files(report: Report, where: Mapping[Format, Path | str | None]) -> dict[Format, Path]:
    """The formats asked for, each at its own path (None: not asked; parent folders are made); what
    was written. A format with nothing to show (no figure to draw) is left out."""
    written = {}
    for fmt, path in where.items():
        if path is None:
            continue
        data = RENDERERS[fmt](report)
        if data is None:
            continue
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        written[fmt] = write_bytes_atomic(target, data)
    return written


def write_report(report: Report, folder: Path) -> dict[Format, Path]:
    """Every file of the report into ``folder`` (made if missing), under the report's own names."""
    return write_files(report, {fmt: folder / name for fmt, name in report.files.items()})


def output_folder(out: Path | None, area: Path, label: str, config: str) -> Path:
    """Where a run writes its report: ``out``, or a new run folder of ``area`` named by
    :func:`~pystats_harness.paths.run_folder`; refused (OutputNotWritable, exit 32) unless it can be written."""
    return check_output_dir(out or run_folder(area, label, config))


def output_file(option: str, value: str | None) -> str | None:
    """An option naming a file to write (``--json``, ``--markdown``, ``--plot`` …), checked before any
    work: None when not given; one line (exit 2) when it is empty or a directory, exit 32 when its
    folder cannot be written."""
    if value is None:
        return None
    if not value.strip():
        raise ConfigError(f"{option} needs a file name (got an empty one)")
    path = Path(value).expanduser()
    if path.is_dir():
        raise ConfigError(f"{option} {value} is a directory; give a file name, e.g. {path / 'out'}")
    check_output_dir(path.resolve().parent, option)
    return value
