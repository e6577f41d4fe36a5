"""A scenario's app views: how the World opens a tool's `ui://` view and makes the calls the view sends.

Opening an app is what a host does: find the tool's `_meta.ui.resourceUri` in `tools/list`,
read that resource (it must be `text/html;profile=mcp-app`), call the tool, and render the view
with the call's input and result (`mcpbdd.apps`). The read and the call are the scenario's own
calls, made as its current caller, so they are in the trace like any other; so is every
`tools/call` the view makes later, each as the caller the scenario had when the app opened
(the user looking at the view), and the storage and outcome phrases read them as usual.

The views a World opened are kept here, beside it (one per World, the last opened), not on it:
the World knows nothing of browsers. The checks of an open view are `mcpbdd.checks.apps`.
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcp.server.apps import APP_MIME_TYPE, Apps

from mcpbdd.apps import AppView, HostContext, ScenarioSide, ViewSource, check_available, open_view, screenshots
from mcpbdd.model.outcome import Channel, Outcome
from mcpbdd.scenario.world import World

_views: weakref.WeakKeyDictionary[World, AppView] = weakref.WeakKeyDictionary()
_hosts: weakref.WeakKeyDictionary[World, HostContext] = weakref.WeakKeyDictionary()


def _json(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def host_context(world: World) -> HostContext:
    """The host context views of this scenario get (light, inline, en-US unless a step changed it)."""
    return _hosts.get(world) or HostContext()


HOST_SETTINGS = {"theme": ("light", "dark"), "display mode": ("inline", "fullscreen", "pip"), "locale": ()}
"""What a scenario may set in the host context, and the values the spec allows (any locale)."""


def set_host_setting(world: World, setting: str, value: str) -> HostContext:
    """Change what the host tells the views opened from now on: its theme, display mode or locale."""
    if setting not in HOST_SETTINGS:
        raise ValueError(f"the app host has no setting {setting!r}: use one of {', '.join(HOST_SETTINGS)}")
    allowed = HOST_SETTINGS[setting]
    if allowed and value not in allowed:
        raise ValueError(f"the app host's {setting} is one of {', '.join(allowed)}, not {value!r}")
    current = host_context(world)
    updated = replace(current, **{setting.replace(" ", "_"): value})
    _hosts[world] = updated
    return updated


def _resource_uri(world: World, tool: str) -> tuple[dict[str, Any], str]:
    for offered in world.offered_tools():
        if offered.name == tool:
            ui = (offered.meta or {}).get("ui") or {}
            uri = ui.get("resourceUri") if isinstance(ui, dict) else None
            if not isinstance(uri, str):
                raise AssertionError(f"the tool {tool!r} has no app: its _meta.ui.resourceUri is not set")
            return _json(offered), uri
    offered_names = ", ".join(world.tool_names()) or "no tools"
    raise AssertionError(f"the server offers no tool {tool!r}; it offers: {offered_names}{_late_app_tool(world, tool)}")


def _late_app_tool(world: World, tool: str) -> str:
    """Why an app tool the server's module declares is not offered: it was added to `Apps` after the server was built.

    The SDK reads an extension's tools once, in `MCPServer(..., extensions=[apps])`; a later `@apps.tool` is
    silently never served. Only the in-process server's module is looked at, as already imported (nothing
    is imported or built here).
    """
    module_name = (world.server_target or "").partition(":")[0]
    module = sys.modules.get(module_name) if world.server_target and ":" in world.server_target else None
    if module is None:
        return ""
    for name, value in vars(module).items():
        if isinstance(value, Apps) and tool in _app_tool_names(value):
            return (
                f" ({module_name}.{name} declares the app tool {tool!r}, but it was added after the MCPServer was "
                "built: the SDK reads an extension's tools once, in MCPServer(..., extensions=[...]); register app "
                "tools before building the server)"
            )
    return ""


def _app_tool_names(apps: Apps) -> set[str]:
    """The names of the tools `apps` binds (its public `tools()`; a misconfigured one names none)."""
    try:
        bindings = apps.tools()
    except ValueError:
        return set()
    return {str(binding.kwargs.get("name") or binding.fn.__name__) for binding in bindings}


def _source(outcome: Outcome, uri: str) -> ViewSource:
    if outcome.channel is not Channel.OK or outcome.result is None:
        raise AssertionError(f"the app's resource {uri} could not be read: {outcome.failure or outcome.text}")
    contents = getattr(outcome.result, "contents", None) or []
    for item in contents:
        text = getattr(item, "text", None)
        if text is None:
            continue
        if item.mime_type != APP_MIME_TYPE:
            raise AssertionError(
                f"the app's resource {uri} is served as {item.mime_type!r}, not {APP_MIME_TYPE!r}: "
                "hosts do not render it"
            )
        ui = (item.meta or {}).get("ui") or {}
        return ViewSource(uri=uri, html=text, csp=ui.get("csp"), permissions=ui.get("permissions"))
    raise AssertionError(f"the app's resource {uri} has no HTML text")


def _caller(world: World, as_user: str | None) -> Any:
    def call(name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        outcome = world.call_tool(name, arguments, as_user=as_user)
        if outcome.result is not None:
            return _json(outcome.result), None
        if outcome.error is not None:
            return None, {"code": outcome.error.code, "message": outcome.error.message}
        return None, {"code": -32603, "message": outcome.failure or "the call failed"}

    return call


def open_app(world: World, tool: str, arguments: dict[str, Any] | None = None) -> AppView:
    """Call `tool` as the current caller and render its view; the view's own calls go out as that caller too.

    `AppsUnavailable` (with the install line) before anything is called when this machine cannot render it.
    """
    check_available()
    tool_json, uri = _resource_uri(world, tool)
    source = _source(world.read_resource(uri), uri)
    arguments = arguments or {}
    outcome = world.call_tool(tool, arguments)
    result = _json(outcome.result) if outcome.result is not None else None
    caller = world.caller
    view = open_view(
        tool=tool_json,
        arguments=arguments,
        tool_result=result,
        source=source,
        host=host_context(world),
        upstream=world.upstream,
        scenario=ScenarioSide(world.run, world.owner.enter, _caller(world, caller.user if caller else None)),
    )
    _views[world] = view
    return view


def opened(world: World) -> bool:
    """Whether the scenario has opened an app."""
    return world in _views


def app(world: World) -> AppView:
    """The view the scenario opened last; a clear failure when it opened none."""
    view = _views.get(world)
    if view is None:
        raise AssertionError('no app is open: add `When the client opens the app of the tool "..."` first')
    return view


def match_screenshot(world: World, path: str, tolerance: float = screenshots.DEFAULT_TOLERANCE) -> bytes:
    """The open view against the PNG at `path` (written instead with `update_screenshots`); returns the shot.

    `path` is relative to the project (the working folder) and stays inside it: anything else is `Broken`."""
    project = Path.cwd()
    screenshots.stored_path(path, project)  # a name from a feature file: inside the project only, checked first
    view = app(world)
    view.settle()
    shot = view.screenshot()
    if world.settings.update_screenshots:
        screenshots.write_stored(path, project, shot)  # checked again as it opens, following no link
        return shot
    stored = screenshots.read_stored(path, project)
    if stored is None:
        raise screenshots.missing(Path(path))  # named as the feature file names it
    comparison = world.run(screenshots.compare(view.page, shot, stored))
    screenshots.verdict(Path(path), comparison, tolerance)
    return shot


__all__ = [
    "HOST_SETTINGS",
    "app",
    "host_context",
    "match_screenshot",
    "open_app",
    "opened",
    "set_host_setting",
]
