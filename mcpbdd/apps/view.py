"""One opened view: a fresh page of the run's browser, the host page, the view's iframe, and what they did.

The page lives in the scenario's owner task (`ScenarioOwner.enter`), so it is closed with
everything else the scenario opened. Steps drive it synchronously through `run` (the run
loop, for the length of one action), like every other call of the World.

Tool calls the view sends are not made from inside the browser's callbacks: the host page
queues them and `settle` makes each one through `call_tool` (the scenario's caller, the
World's harness, so it is traced and checked like a step's own call), hands the answer back
and repeats until the view has been quiet for `QUIET` seconds.

Network: the host page and the view are served by route interception on two `.localhost`
origins, so nothing leaves the machine. A request the view's policy allows goes to the
scenario's upstream doubles when they answer its origin; otherwise it is refused and
recorded (`Observed.refused`). A request the policy forbids never reaches the network:
Chromium blocks it and the view's `securitypolicyviolation` event records it.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from mcpbdd.apps.browser import shared_browser
from mcpbdd.apps.csp import SANDBOX, allow_attribute, content_security_policy
from mcpbdd.apps.host_page import host_page
from mcpbdd.apps.observed import Observed, ToolCallFromView, Violation
from mcpbdd.upstream import Upstream

if TYPE_CHECKING:
    from playwright.async_api import ConsoleMessage, Frame, Locator, Page, Route

T = TypeVar("T")

HOST_URL = "http://host.mcpbdd.localhost/"
VIEW_ORIGIN = "http://view.mcpbdd.localhost"
VIEW_URL = VIEW_ORIGIN + "/view.html"
VIEWPORT = {"width": 800, "height": 600}
INITIALIZE_TIMEOUT = 5.0
"""Seconds a view has to finish `ui/initialize` (and say `ui/notifications/initialized`)."""
QUIET = 0.1
"""Seconds without a new request from the view after which an action is done."""
WAIT = 3.0
"""Seconds a phrase waits for what the view should show (or for a control to act on)."""

_REPORTER = r"""
if (location.origin === "VIEW_ORIGIN") {
  window.__mcpbddSeen = {violations: [], uncaught: []};
  document.addEventListener("securitypolicyviolation", (e) => window.__mcpbddSeen.violations.push(
    {directive: e.effectiveDirective || e.violatedDirective, url: e.blockedURI || "", source: e.sourceFile || ""}));
  window.addEventListener("error", (e) => window.__mcpbddSeen.uncaught.push(String(e.message || e.error)));
  window.addEventListener("unhandledrejection", (e) => window.__mcpbddSeen.uncaught.push(
    "unhandled rejection: " + String(e.reason && e.reason.message || e.reason)));
}
""".replace("VIEW_ORIGIN", VIEW_ORIGIN)


@dataclass(frozen=True)
class ViewSource:
    """A `ui://` resource as read from the server: its HTML and its `_meta.ui`."""

    uri: str
    html: str
    csp: Mapping[str, Any] | None = None
    permissions: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class HostContext:
    """What the host tells the view about itself (`hostContext` of `ui/initialize`); a scenario may change it."""

    theme: str = "light"
    display_mode: str = "inline"
    locale: str = "en-US"
    time_zone: str = "UTC"

    def to_json(self, tool: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "theme": self.theme,
            "displayMode": self.display_mode,
            "availableDisplayModes": [self.display_mode],
            "locale": self.locale,
            "timeZone": self.time_zone,
            "platform": "web",
            "containerDimensions": {"width": VIEWPORT["width"], "maxHeight": VIEWPORT["height"]},
            "toolInfo": {"tool": dict(tool)},
        }


ToolCaller = Callable[[str, dict[str, Any]], tuple[dict[str, Any] | None, dict[str, Any] | None]]
"""Makes a view's `tools/call` to the server under test: (result, None) or (None, JSON-RPC error)."""
Runner = Callable[[Coroutine[Any, Any, Any]], Any]


@dataclass
class AppView:
    """A view being shown. Build it with `open_view`; act on it and read it with the methods below."""

    page: Page
    observed: Observed
    call_tool: ToolCaller
    run: Runner
    screenshots: list[bytes] = field(default_factory=list)

    # reading ---------------------------------------------------------------------------------

    @property
    def frame(self) -> Frame:
        for frame in self.page.frames:
            if frame.url.startswith(VIEW_ORIGIN):
                return frame
        raise AssertionError(f"the view of the tool {self.observed.tool!r} is not loaded (its iframe is gone)")

    def text(self) -> str:
        """What the view shows, as text."""
        try:
            return str(self.run(self.frame.evaluate("() => document.body ? document.body.innerText : ''")))
        except AssertionError:
            return ""

    def shows(self, text: str) -> bool:
        """Whether the view shows `text` (waiting up to `WAIT` seconds for it, serving the view's calls meanwhile)."""
        self.settle()
        # A pattern, not the text: Playwright matches a text ignoring case; a specification means its case.
        locator = self.page.frame_locator("#mcpbdd-view").get_by_text(re.compile(re.escape(text))).first
        try:
            self.run(locator.wait_for(state="visible", timeout=WAIT * 1000))
        except Exception:
            return False
        return True

    def collect(self) -> Observed:
        """The records, brought up to date with what the view's frame saw (violations, uncaught exceptions)."""
        try:
            seen = self.run(self.frame.evaluate("() => window.__mcpbddSeen || {violations: [], uncaught: []}"))
        except Exception:
            seen = {"violations": [], "uncaught": []}
        for item in seen["violations"]:
            self.observed.add_violation(Violation(item["directive"], item["url"], item["source"]))
        for message in seen["uncaught"]:
            if message not in self.observed.uncaught:
                self.observed.uncaught.append(message)
        state = self.run(
            self.page.evaluate(
                "() => ({log: __mcpbddHost.log, links: __mcpbddHost.links, messages: __mcpbddHost.messages})"
            )
        )
        self.observed.log, self.observed.links, self.observed.messages = state["log"], state["links"], state["messages"]
        return self.observed

    def screenshot(self) -> bytes:
        """A PNG of the view's iframe as it is now."""
        shot: bytes = self.run(self.page.locator("#mcpbdd-view").screenshot(animations="disabled"))
        self.screenshots.append(shot)
        return shot

    # acting ------------------------------------------------------------------------------------

    def _control(self, label: str) -> Locator:
        view = self.page.frame_locator("#mcpbdd-view")
        return (
            view.get_by_role("button", name=label, exact=True)
            .or_(view.get_by_role("link", name=label, exact=True))
            .or_(view.get_by_text(label, exact=True))
            .first
        )

    def click(self, label: str) -> None:
        """Click the button (or link, or text) labelled `label`, then serve the calls it made."""
        try:
            self.run(self._control(label).click(timeout=WAIT * 1000))
        except Exception as exc:
            raise AssertionError(self._missing(f"nothing labelled {label!r} to click", exc)) from None
        self.settle()

    def type_into(self, text: str, field_name: str) -> None:
        """Type `text` into the field labelled (or with placeholder, or named) `field_name`."""
        view = self.page.frame_locator("#mcpbdd-view")
        target = (
            view.get_by_label(field_name, exact=True)
            .or_(view.get_by_placeholder(field_name, exact=True))
            .or_(view.locator(f"[name={json.dumps(field_name)}]"))
            .first
        )
        try:
            self.run(target.fill(text, timeout=WAIT * 1000))
        except Exception as exc:
            raise AssertionError(self._missing(f"no field {field_name!r} to type into", exc)) from None
        self.settle()

    def _missing(self, what: str, exc: BaseException) -> str:
        shown = " ".join(self.text().split())[:300] or "nothing"
        return f"the app of the tool {self.observed.tool!r} has {what}; it shows: {shown} ({type(exc).__name__})"

    def settle(self) -> None:
        """Serve the view's queued `tools/call` requests through `call_tool` until it stays quiet."""
        for _ in range(50):
            pending = self.run(self.page.evaluate("() => __mcpbddHost.pending.splice(0)"))
            if not pending:
                try:
                    self.run(self.page.wait_for_function("() => __mcpbddHost.pending.length > 0", timeout=QUIET * 1000))
                except Exception:
                    return
                continue
            for request in pending:
                self._serve(request)

    def _serve(self, request: dict[str, Any]) -> None:
        name, arguments = str(request.get("name")), dict(request.get("arguments") or {})
        result, error = self.call_tool(name, arguments)
        self.observed.tool_calls.append(ToolCallFromView(name, arguments, result, error))
        self.run(self.page.evaluate("([id, r, e]) => __mcpbddHost.reply(id, r, e)", [request["id"], result, error]))


async def _initialized(page: Page) -> str | None:
    """None once the view said `ui/notifications/initialized`; else why not."""
    try:
        await page.wait_for_function("() => __mcpbddHost.initialized", timeout=INITIALIZE_TIMEOUT * 1000)
    except Exception:
        said = await page.evaluate("() => __mcpbddHost.log.filter(e => e.direction === 'view -> host').length")
        if not said:
            return f"the view sent nothing to the host within {INITIALIZE_TIMEOUT:g} s (no ui/initialize)"
        return f"the view did not send ui/notifications/initialized within {INITIALIZE_TIMEOUT:g} s"
    return None


def _router(source: ViewSource, host_html: str, upstream: Upstream, observed: Observed) -> Callable[[Route], Any]:
    policy = content_security_policy(source.csp)

    async def route(route: Route) -> None:
        request = route.request
        url = request.url
        if url == HOST_URL:
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=host_html)
        elif url == VIEW_URL:
            headers = {"Content-Security-Policy": policy, "Cache-Control": "no-store"}
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=source.html, headers=headers)
        elif url.startswith(VIEW_ORIGIN) or url.startswith(HOST_URL):
            await route.fulfill(status=404, body="")
        elif upstream.routes_for(httpx.URL(url).scheme + "://" + httpx.URL(url).netloc.decode()):
            outbound = httpx.Request(
                request.method, url, headers=await request.all_headers(), content=request.post_data_buffer
            )
            found, record = upstream.decide(outbound)
            if found is not None and found.kind in ("timeout", "unreachable"):
                await route.abort("connectionrefused")
                return
            answer = upstream.response(found, record)
            await route.fulfill(status=answer.status_code, headers=dict(answer.headers), body=answer.content)
        else:
            observed.refused.append(f"{request.method} {url}")
            await route.abort("blockedbyclient")

    return route


@asynccontextmanager
async def _page(viewport_locale: str) -> AsyncIterator[Page]:
    browser = await shared_browser()
    context = await browser.new_context(viewport=VIEWPORT, locale=viewport_locale)  # type: ignore[arg-type]
    try:
        yield await context.new_page()
    finally:
        await context.close()


@dataclass(frozen=True)
class ScenarioSide:
    """How the scenario drives a view: its loop (`run`), its owner task (`enter`), its calls (`call_tool`)."""

    run: Runner
    enter: Callable[[AbstractAsyncContextManager[Page]], Page]
    """Enters the page in the scenario's owner task, which closes it with the scenario."""
    call_tool: ToolCaller


def open_view(
    *,
    tool: Mapping[str, Any],
    arguments: dict[str, Any],
    tool_result: dict[str, Any] | None,
    source: ViewSource,
    host: HostContext,
    upstream: Upstream,
    scenario: ScenarioSide,
) -> AppView:
    """Render `source` for `tool` in a fresh page: host page, iframe, initialization, input and result delivered."""
    run = scenario.run
    observed = Observed(tool=str(tool.get("name")), resource_uri=source.uri)
    config = {
        "viewUrl": VIEW_URL,
        "sandbox": SANDBOX,
        "allow": allow_attribute(source.permissions),
        "hostInfo": {"name": "mcpbdd", "version": "1"},
        "hostCapabilities": {
            "openLinks": {},
            "serverTools": {},
            "logging": {},
            "sandbox": {"csp": dict(source.csp or {}), "permissions": dict(source.permissions or {})},
        },
        "hostContext": host.to_json(tool),
        "toolInput": arguments,
        "toolResult": tool_result,
    }
    page = scenario.enter(_page(host.locale))

    def on_console(message: ConsoleMessage) -> None:
        observed.console(message.type, message.text)

    page.on("console", on_console)
    run(page.add_init_script(_REPORTER))
    run(page.route("**/*", _router(source, host_page(config), upstream, observed)))
    run(page.goto(HOST_URL))
    observed.initialize_failure = run(_initialized(page))
    view = AppView(page=page, observed=observed, call_tool=scenario.call_tool, run=run)
    view.settle()
    return view


__all__ = ["HOST_URL", "VIEW_ORIGIN", "AppView", "HostContext", "ScenarioSide", "ToolCaller", "ViewSource", "open_view"]
