"""Publishing the site: the request checked before any work, every page written into a staging folder
(``<out>.partial-<pid>``) and the folder renamed into place when complete, so a failed or interrupted
publish leaves the previous site (or none), never half a site. An existing ``--out`` is replaced only when
it is a site published here (it has :data:`MARKER`) or empty."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import ConfigError
from pystats_harness.infra.fs import check_output_dir
from pystats_harness.publish.metric_page import metric_page
from pystats_harness.publish.names import headline, slugs
from pystats_harness.publish.pages import index_page, run_page
from pystats_harness.reports import write_report
from pystats_harness.results import Store
from pystats_harness.results.errors import UnknownMetric

MARKER = ".pystats-site"
_NAME = re.compile(r"[A-Za-z0-9_.*<>-]+")


@dataclass(frozen=True)
class Site:
    """A published site: its folder, how many runs it shows, the metrics with a page (each with its file stem
    under ``metrics/``) and those without."""

    folder: Path
    runs: int
    metric_pages: Mapping[str, str]
    without_values: tuple[str, ...]

    @property
    def index(self) -> Path:
        return self.folder / "index.html"


def check_request(out: Path, metrics: Sequence[str], store_path: Path) -> None:
    """Refuse what would fail, before any work: a ``--metric`` that is no metric name (exit 2), an ``--out``
    that cannot be written (32) or holds something other than a site (2), a file that is no results store
    (35). No store yet is no error: the site says that no run is recorded, as ``invoke results`` does."""
    for metric in metrics:
        if not _NAME.fullmatch(metric):
            raise ConfigError(
                f"--metric {metric!r} is not a metric name (e.g. opcode.LOAD_ATTR.specialization.hit_ratio)"
            )
    check_output_dir(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).is_file())):
        raise ConfigError(f"--out {out} holds something other than a published site; give a new or empty folder")
    if store_path.exists():
        Store.check(store_path)


def publish_site(store_path: Path, out: Path, configured: Sequence[str], asked: Sequence[str]) -> Site:
    """Every page of the store at ``store_path`` into ``out`` (replacing the site there): the headline metrics
    are ``configured`` (``<family>`` expanded) and ``asked``; a metric among ``asked`` that no stored unit
    has is UnknownMetric (exit 37) and nothing is written."""
    staging = out.with_name(f"{out.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with Store.open(store_path, create=False) as store:
            for metric in asked:
                store.series(metric)  # UnknownMetric before any page
            site = _write(store, staging, configured, asked)
        (staging / MARKER).write_text("published by invoke publish\n")
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Site(out, site.runs, site.metric_pages, site.without_values)


def _write(store: Store, folder: Path, configured: Sequence[str], asked: Sequence[str]) -> Site:
    names = store.counter_names()
    wanted = headline(configured, asked, names)
    stems = slugs(wanted)
    pages: dict[str, str] = {}
    for metric in wanted:
        try:
            report = metric_page(metric, stems[metric], store.series(metric))
        except UnknownMetric:
            report = None
        if report is not None:
            write_report(report, folder)
            pages[metric] = stems[metric]
    without = tuple(m for m in wanted if m not in pages)
    runs = store.runs()
    known = {r.run_id for r in runs}
    columns = [m for m in configured if "<" not in m]
    for summary in runs:
        write_report(run_page(store.get(summary.run_id), known, columns, pages), folder)
    write_report(index_page(runs, pages, without, str(store.path)), folder)
    return Site(folder, len(runs), pages, without)


def _swap_in(staging: Path, out: Path) -> None:
    """``staging`` becomes ``out``; the site there before is removed once the new one is in place."""
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    if out.exists():
        os.replace(out, old)
    try:
        os.replace(staging, out)
    except BaseException:
        if old.exists() and not out.exists():
            os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
