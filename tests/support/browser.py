"""Headless Chromium from Debian's packages (``chromium``, ``chromium-driver``; scripts/install-host.sh
installs them) driven by Selenium, with nothing downloaded: the driver and the browser are the system's,
Selenium Manager is told to stay offline. The browser's console is kept (``goog:loggingPrefs``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def missing() -> str | None:
    """Why the browser cannot run here (None when it can)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            return f"{path} is missing: apt-get install chromium chromium-driver (scripts/install-host.sh does)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is missing: pip install -e '.[test]'"
    return None


@contextmanager
def chromium(width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium WebDriver, quit at the end."""
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager never fetches a driver or a browser
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
