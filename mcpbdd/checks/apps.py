"""The checks of an open app view: what it shows, its errors, its content security policy, the calls and links it
made (`mcpbdd/steps/apps.py`).

Each takes the view the scenario opened (`mcpbdd.scenario.apps.app(world)`), waits for it to settle where what
it did may still be arriving, and names in its failure what the view did instead: the text it shows, each error,
each refused URL with its directive, each tool it called. The screenshot comparison's verdict is the app host's
own (`mcpbdd.apps.screenshots.verdict`), beside the comparison it judges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpbdd.apps import AppView

__all__ = ["asked_to_open", "breaks_no_rule", "called", "shows", "shows_no_error", "was_refused"]


def _listed(items: list[str]) -> str:
    return "\n".join(f"  - {item}" for item in items)


def shows(view: AppView, text: str) -> None:
    """The open view shows `text` (waiting a little for it); else what it shows instead."""
    if view.shows(text):
        return
    shown = " ".join(view.text().split())[:500] or "nothing"
    errors = view.collect().errors()
    said = f"; its errors:\n{_listed(errors)}" if errors else ""
    raise AssertionError(f"the app of the tool {view.observed.tool!r} does not show {text!r}; it shows: {shown}{said}")


def shows_no_error(view: AppView) -> None:
    """The open view initialized, threw nothing uncaught and logged no console error (each error named)."""
    view.settle()
    errors = view.collect().errors()
    if errors:
        raise AssertionError(
            f"the app of the tool {view.observed.tool!r} has {len(errors)} error(s):\n{_listed(errors)}"
        )


def breaks_no_rule(view: AppView) -> None:
    """The open view loaded nothing its content security policy forbids (each violation: directive and URL)."""
    view.settle()
    violations = [v.describe() for v in view.collect().violations]
    if violations:
        raise AssertionError(
            f"the app of the tool {view.observed.tool!r} broke {len(violations)} content security rule(s) "
            f"of its resource {view.observed.resource_uri}:\n{_listed(violations)}"
        )


def was_refused(view: AppView, url: str) -> None:
    """The open view's policy refused `url` (a scenario showing that a host blocks what the policy omits)."""
    view.settle()
    violations = view.collect().violations
    if any(v.url == url for v in violations):
        return
    found = _listed([v.describe() for v in violations]) if violations else "  (none)"
    raise AssertionError(f"the app's content security policy did not refuse {url}; it refused:\n{found}")


def called(view: AppView, tool: str) -> None:
    """The open view called `tool` through the host (the call itself is in the trace, for the outcome steps)."""
    view.settle()
    names = [call.name for call in view.observed.tool_calls]
    if tool not in names:
        called = ", ".join(names) or "no tool"
        raise AssertionError(f"the app of the tool {view.observed.tool!r} did not call {tool!r}; it called {called}")


def asked_to_open(view: AppView, url: str) -> None:
    """The open view asked the host to open `url` (recorded, never followed)."""
    view.settle()
    links = view.collect().links
    if url not in links:
        asked = ", ".join(links) or "nothing"
        raise AssertionError(f"the app did not ask to open {url}; it asked to open {asked}")
