"""Debian's Chromium in headless mode, driven by Playwright pointed at it (nothing downloads a
browser), for the report and dashboard tests. In CI (``$CI`` set) a missing Chromium or Playwright
fails the tests, naming the script that installs it; elsewhere they skip with the same hint."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import pytest

#: Bound on Chromium's start (milliseconds; Playwright's own default is 30 s, short for a loaded
#: machine; about a second on an idle one).
LAUNCH_TIMEOUT_MS = 120_000


def chromium_path() -> str | None:
    """Debian's Chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing(message: str) -> NoReturn:
    """Fail in CI, skip elsewhere."""
    message += " (scripts/ensure-chromium.sh installs Debian's chromium; pip install -e '.[dev]' Playwright)"
    if os.environ.get("CI"):
        pytest.fail(f"{message}; the browser tests must run in CI")
    pytest.skip(message)


@contextmanager
def headless_chromium() -> Iterator[Any]:
    """A launched headless Chromium (a Playwright browser), closed at the end."""
    executable = chromium_path()
    if executable is None:
        missing("chromium is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed")
    with sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"], timeout=LAUNCH_TIMEOUT_MS
        )
        try:
            yield launched
        finally:
            launched.close()
