"""What an in-process server registered, snapshotted before a scenario and put back after it.

A module-level `MCPServer` is one object for the whole run, in-process. A tool that calls
`mcp.add_tool(...)` or `mcp.remove_tool(...)`, a handler added with `add_request_handler`, a
setting changed at runtime: left alone, the next scenario would see it, while over stdio or HTTP
(a fresh process per scenario) it would not, and the same scenario would get another verdict. So
each in-process harness takes `Registrations.take(server)` as it enters and `restore()`s it as it
exits: every holder the SDK keeps registrations in (`mcpbdd._sdk.registration_holders`: the server,
its settings, its managers, its low-level server, each registered tool, resource, template and
prompt) gets back the attributes it had, and each dict, list or set among them its entries (an
attribute set meanwhile is left: the SDK caches derived values there, such as a tool's output
schema). What changed is returned, in words, for whoever wants to say so.

Cheap by design (shallow copies of a few dicts; `bench/bench_registrations.py` measures it, BENCHMARKS.md):
no deep copy, so state a server keeps elsewhere (module globals, closures, a database) is the server's
business, as it is between two requests in production.
"""

from __future__ import annotations

import operator
from typing import Any

from mcpbdd._sdk import registration_holders

__all__ = ["Registrations"]

_CONTAINERS = (dict, list, set)


_Held = tuple[str, object, dict[str, Any], dict[str, Any]]
"""A holder's label, the holder, its attributes as they were, and a copy of each registry among them."""


class Registrations:
    """A snapshot of an in-process server's registrations (`take`), restored with `restore`."""

    def __init__(self, held: list[_Held]) -> None:
        self._held = held

    @classmethod
    def take(cls, server: Any) -> Registrations:
        """The server's registrations now. A registered tool, prompt, resource or template is taken by its
        attributes only (their own containers, such as a tool's input schema, are the SDK's derived data)."""
        held: list[_Held] = []
        for label, holder in registration_holders(server).items():
            attributes = vars(holder).copy()
            if label.startswith("the ") and label != "the server":
                held.append((label, holder, attributes, _NONE))
            else:
                contents = {name: _copy(value) for name, value in attributes.items() if isinstance(value, _CONTAINERS)}
                held.append((label, holder, attributes, contents))
        return cls(held)

    def restore(self) -> list[str]:
        """Put every holder back as it was when taken; what had changed, in words (empty: nothing)."""
        changed: list[str] = []
        for label, holder, attributes, contents in self._held:
            # An attribute set since is left: the SDK caches derived values there (a tool's output_schema).
            current = vars(holder)
            if not _unchanged(current, attributes):
                for name, value in attributes.items():
                    if current.get(name, _GONE) is not value:
                        current[name] = value
                        changed.append(f"{label}: {name} was replaced")
            for name, before in contents.items():
                live = attributes[name]
                if not _same(live, before):
                    changed.append(f"{label}: {name} {_difference(live, before)}")
                    _refill(live, before)
        return changed


_NONE: dict[str, Any] = {}
_GONE = object()


def _unchanged(current: dict[str, Any], attributes: dict[str, Any]) -> bool:
    """The common case, at C speed: the same names, each bound to the very same object."""
    return current.keys() == attributes.keys() and all(map(operator.is_, current.values(), attributes.values()))


def _copy(container: Any) -> Any:
    return container.copy() if isinstance(container, dict) else list(container)


def _same(live: Any, before: Any) -> bool:
    """Whether a container holds the very same entries as its copy (by identity: an entry replaced is a change)."""
    if isinstance(live, dict):
        return _unchanged(live, before)
    items = list(live)
    return len(items) == len(before) and all(map(operator.is_, items, before))


def _difference(live: Any, before: Any) -> str:
    if not isinstance(live, dict):
        return f"changed from {len(before)} to {len(live)} entries"
    added = [repr(key) for key in live if key not in before]
    removed = [repr(key) for key in before if key not in live]
    replaced = [repr(key) for key in live if key in before and live[key] is not before[key]]
    parts = [
        f"{what} {', '.join(keys)}"
        for what, keys in (("added", added), ("removed", removed), ("replaced", replaced))
        if keys
    ]
    return "; ".join(parts)


def _refill(live: Any, before: Any) -> None:
    live.clear()
    if isinstance(live, dict):
        live.update(before)
    elif isinstance(live, list):
        live.extend(before)
    else:
        live.update(before)
