"""The run's Chromium: found on the machine, launched once per run loop, closed when the run ends.

Launching Chromium costs about a second; a page costs a few tens of milliseconds. So one browser
serves a whole run (every scenario gets its own page, in its own browser context, so nothing a
view stored leaks into the next scenario), kept per event loop: Playwright's async API is bound
to the loop it started on, and a run has one loop (`mcpbdd.scenario.runtime`).

Only a system browser is used (`executable_path`): Playwright's own download needs the network,
and a run must work where only the distribution's `chromium` package is installed. Without it,
or without the `playwright` package, `AppsUnavailable` carries the line that installs what is
missing; the steps skip the scenario with it (never pass it), or break it where the project requires
apps (`mcpbdd.model.requirements`).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import TYPE_CHECKING

from mcpbdd.model.requirements import CapabilityMissing

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Headless, and nothing the browser would fetch on its own (updates, sync, first-run pages)."""

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

INSTALL_CHROMIUM = "apt-get install chromium"
INSTALL_PLAYWRIGHT = "pip install playwright"  # or: pip install 'mcpbdd[apps]'


class AppsUnavailable(CapabilityMissing):
    """The machine cannot render a view: no Chromium, or no Playwright. The message says how to install it:
    `no Chromium (apt-get install chromium)`, the reason a skipped scenario gives."""

    def __init__(self, reason: str, install: str) -> None:
        super().__init__("apps", reason, install)


def chromium_path() -> str:
    """The system Chromium ($MCPBDD_CHROMIUM first), or `AppsUnavailable` with the install line."""
    configured = os.environ.get("MCPBDD_CHROMIUM")
    if configured:
        if os.access(configured, os.X_OK):
            return configured
        raise AppsUnavailable(
            f"no Chromium at $MCPBDD_CHROMIUM={configured!r} (not an executable)",
            f"point $MCPBDD_CHROMIUM at a browser, or unset it and {INSTALL_CHROMIUM}",
        )
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise AppsUnavailable("no Chromium", INSTALL_CHROMIUM)


def require_playwright() -> None:
    """`AppsUnavailable` with the install line when the `playwright` package is missing."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        raise AppsUnavailable("no Playwright for Python", INSTALL_PLAYWRIGHT) from None


def check_available() -> None:
    """Raise `AppsUnavailable` (with what to install) unless a view can be rendered here."""
    require_playwright()
    chromium_path()


class _Running:
    def __init__(self, playwright: Playwright, browser: Browser) -> None:
        self.playwright = playwright
        self.browser = browser


_running: dict[asyncio.AbstractEventLoop, _Running] = {}
_starting: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}


async def shared_browser() -> Browser:
    """The run loop's browser, launched on first use."""
    check_available()
    loop = asyncio.get_running_loop()
    running = _running.get(loop)
    if running is not None and running.browser.is_connected():
        return running.browser
    lock = _starting.setdefault(loop, asyncio.Lock())
    async with lock:
        running = _running.get(loop)
        if running is None or not running.browser.is_connected():
            from playwright.async_api import async_playwright

            playwright = await async_playwright().start()
            browser = await playwright.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            running = _running[loop] = _Running(playwright, browser)
    return running.browser


async def close_browser() -> None:
    """Close the running loop's browser (the run ends); nothing when none was started."""
    running = _running.pop(asyncio.get_running_loop(), None)
    if running is None:
        return
    try:
        await running.browser.close()
    finally:
        await running.playwright.stop()


def close_browser_of(loop: asyncio.AbstractEventLoop) -> None:
    """Close `loop`'s browser from outside the loop (the run's last hook, before the loop closes)."""
    if loop in _running and not loop.is_closed():
        loop.run_until_complete(close_browser())


__all__ = [
    "CHROMIUM_ARGS",
    "INSTALL_CHROMIUM",
    "INSTALL_PLAYWRIGHT",
    "AppsUnavailable",
    "check_available",
    "chromium_path",
    "close_browser",
    "close_browser_of",
    "require_playwright",
    "shared_browser",
]
