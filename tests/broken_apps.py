"""Apps that go wrong the ways a real view does (tests/behave_cases/features/failing_app_views.feature).

Test-only. Each tool is bound to a `ui://` view with one fault:

- `throwing`: initializes, then throws an uncaught exception and logs a console error;
- `silent`: never sends `ui/initialize`;
- `tracking`: loads a script from a domain its policy does not list;
- `late`: registered after `MCPServer(...)` was built, so never offered.
"""

from __future__ import annotations

from mcp.server.apps import Apps
from mcp.server.mcpserver import MCPServer

_HANDSHAKE = """
const hello = {protocolVersion: "2026-01-26", appInfo: {name: "t", version: "1"}, appCapabilities: {}};
window.parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: hello}, "*");
window.addEventListener("message", (e) => {
  if (e.data.id === 1) window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized"}, "*");
});
"""

apps = Apps()
apps.add_html_resource(
    "ui://broken/throwing.html",
    "<!doctype html><html><body><p>Hello</p><script>"
    + _HANDSHAKE
    + 'console.error("the chart data is missing"); setTimeout(() => { null.price; }, 0);'
    + "</script></body></html>",
)
apps.add_html_resource("ui://broken/silent.html", "<!doctype html><html><body><p>Waiting</p></body></html>")
apps.add_html_resource(
    "ui://broken/tracking.html",
    "<!doctype html><html><body><p>Hello</p><script>"
    + _HANDSHAKE
    + '</script><script src="https://tracker.example.org/t.js"></script></body></html>',
)


@apps.tool(resource_uri="ui://broken/throwing.html")
def throwing() -> str:
    return "chart"


@apps.tool(resource_uri="ui://broken/silent.html")
def silent() -> str:
    return "nothing"


@apps.tool(resource_uri="ui://broken/tracking.html")
def tracking() -> str:
    return "tracked"


mcp = MCPServer("broken-apps", extensions=[apps])


@apps.tool(resource_uri="ui://broken/silent.html")
def late() -> str:
    """Added to the Apps after the server was built: the SDK never serves it (a newcomer's mistake, named)."""
    return "too late"


__all__ = ["mcp"]
