"""A headless MCP Apps host: a tool's `ui://` view rendered in a real Chromium, and what the user sees.

- `browser`: the system Chromium, one per run (or `AppsUnavailable` with the install line).
- `csp`: the resource's `_meta.ui.csp` and permissions as a policy header and an iframe `allow`.
- `host_page`: the host side of the view protocol, in the page around the view's iframe.
- `view`: one opened view (`open_view`, `AppView`): actions, the calls it makes, what it shows.
- `observed`: what the host recorded (errors, violations, links, the message log).
- `screenshots`: a view against a stored PNG.

The World opens views (`mcpbdd.scenario.apps`), so the view's tool calls are ordinary calls of
the scenario; nothing here knows about behave.
"""

from mcpbdd.apps.browser import AppsUnavailable, check_available
from mcpbdd.apps.observed import Observed, Violation
from mcpbdd.apps.view import AppView, HostContext, ScenarioSide, ViewSource, open_view

__all__ = [
    "AppView",
    "AppsUnavailable",
    "HostContext",
    "Observed",
    "ScenarioSide",
    "ViewSource",
    "Violation",
    "check_available",
    "open_view",
]
