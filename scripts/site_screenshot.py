"""Screenshots of the published site for docs/publish.md: publishes the results store of the settings (or,
with --demo, a small demo store made in a temporary folder: tests/support/site_store.py) and saves PNGs of
index.html and one metric page, taken by headless Chromium (Debian's chromium and chromium-driver, through
Selenium; nothing is downloaded), into docs/img/. Not run by the tests: run it when the site's look changes.

    python3 scripts/site_screenshot.py --demo           # docs/img/site-index.png, docs/img/site-metric.png
    python3 scripts/site_screenshot.py --out /tmp/shots # the store of this machine's cache
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pystats_harness.config import settings_from_environment  # noqa: E402
from pystats_harness.publish import publish_site  # noqa: E402
from pystats_harness.results import queried  # noqa: E402
from tests.support.browser import chromium  # noqa: E402
from tests.support.site_store import demo_store  # noqa: E402

METRIC = "family.LOAD_ATTR.specialization.hit_ratio"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", action="store_true", help="publish a demo store made in a temporary folder")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="where the PNGs go")
    args = parser.parse_args()
    settings = settings_from_environment(os.environ)
    with tempfile.TemporaryDirectory(prefix="site-shot-") as tmp:
        db = Path(tmp) / "results.sqlite" if args.demo else settings.paths.results_db
        if args.demo:
            demo_store(db)
        site = publish_site(db, Path(tmp) / "site", settings.publish_metrics, queried.queried(db))
        metric = METRIC if METRIC in site.metric_pages else next(iter(site.metric_pages))
        page = site.folder / "metrics" / f"{site.metric_pages[metric]}.html"
        args.out.mkdir(parents=True, exist_ok=True)
        with chromium(width=1200, height=900) as browser:
            for url, name in ((site.index.as_uri(), "site-index.png"), (page.as_uri(), "site-metric.png")):
                browser.get(url)
                browser.save_screenshot(str(args.out / name))
                print(f"{args.out / name}: {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
