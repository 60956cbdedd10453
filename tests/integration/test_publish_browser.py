"""invoke publish's site in a real browser: headless Chromium (Debian's chromium and chromium-driver, driven
by Selenium, nothing downloaded) opens every page of a site published from a store of realistic runs (two
collects at two commit dates, a validation, a diff with flagged changes): each page loads from the file
system with no console error, every link is a file of the site (no address outside it), every image is
drawn, and each metric page's table has one row per stored point of its metric. No Docker, no build."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

from pystats_harness.config import load_settings
from pystats_harness.publish import publish_site
from pystats_harness.results import Store
from tests.support.browser import chromium, missing
from tests.support.site_store import demo_store

LINKS = "return Array.from(document.querySelectorAll('a')).map(a => a.getAttribute('href') === null ? '' : a.href)"
IMAGES = "return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])"
ROWS = (
    "return Array.from(document.querySelectorAll('table tbody tr'))"
    ".map(r => Array.from(r.cells).map(c => c.textContent))"
)


def test_every_page_opens_cleanly_and_the_metric_pages_show_the_stored_points(tmp_path: Path) -> None:
    assert missing() is None, missing()
    db = tmp_path / "results.sqlite"
    ids = demo_store(db)
    site = publish_site(db, tmp_path / "site", load_settings().publish_metrics, ["gc.0.collections"])
    pages = sorted(site.folder.rglob("*.html"))
    assert len(pages) == 1 + len(ids) + len(site.metric_pages) and site.without_values == ("uops.*.execution_count",)
    with chromium() as browser, Store.open(db, create=False) as store:
        for page in pages:
            browser.get(page.as_uri())
            where = page.relative_to(site.folder)
            assert browser.title and "http" not in browser.page_source, where
            severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
            assert severe == [], (where, severe)
            for href in browser.execute_script(LINKS):
                target = Path(unquote(urlparse(href).path))
                assert href.startswith("file://") and target.is_file() and site.folder in target.parents, (where, href)
            images = browser.execute_script(IMAGES)
            assert all(complete and width > 0 for _, complete, width in images), (where, images)
            if where.parent.name == "metrics":
                assert len(images) == 1, where
        for metric, stem in site.metric_pages.items():
            browser.get((site.folder / "metrics" / f"{stem}.html").as_uri())
            rows = browser.execute_script(ROWS)
            points = store.series(metric)
            stored = Counter((p.unit, p.run_id[:12]) for p in points if p.value is not None)
            assert Counter((row[5], row[8]) for row in rows) == stored, metric
