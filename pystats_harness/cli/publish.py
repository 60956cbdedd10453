"""`invoke publish`: a static site from the results store (docs/publish.md): an index of runs with their
verdicts, a page per run and per diff, a page per headline metric plotted over commit date."""

from __future__ import annotations

from pathlib import Path

from invoke import Context as InvokeContext
from rich.markup import escape

from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.console import stdout_console
from pystats_harness.infra.context import Context
from pystats_harness.publish import check_request, publish_site
from pystats_harness.results import queried


def publish(ctx: Context, *, out: str | None, metrics: list[str]) -> None:
    """`invoke publish` (options as the task names them): checked first, then the site put in place whole."""
    folder = Path(out).expanduser().resolve() if out else ctx.settings.paths.site
    db = ctx.settings.paths.results_db
    check_request(folder, metrics, db)
    asked = [*queried.queried(db), *metrics]
    site = publish_site(db, folder, ctx.settings.publish_metrics, asked)
    console = stdout_console()
    console.print(
        f"published {site.runs} run(s) and {len(site.metric_pages)} metric page(s) into {escape(str(site.folder))}"
        + (f"; no stored value for {len(site.without_values)} headline metric(s)" if site.without_values else "")
    )
    if not site.runs:
        console.print("no run is recorded yet: validate, collect, history and bisect record theirs in the store")
    console.print(f"open {site.index.as_uri()}")


# The task (tasks.py lists it): options declared once, with their help, above the function it calls.


@harness_task(
    help={
        "out": "the site's folder (default: <cache_dir>/site); a site there is replaced whole, another folder refused",
        "metric": "also plot this metric (repeatable): any metric invoke results --metric takes, e.g. gc.*.collections",
    },
    iterable=["metric"],
)
def publish_task(c: InvokeContext, out: str | None = None, metric: list[str] | None = None) -> None:
    """A static site from the results store: runs and verdicts, a page per run and diff, headline metrics plotted."""
    publish(settings_of(c), out=out, metrics=list(metric or []))
