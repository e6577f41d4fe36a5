"""Rug pulls: each tool's description and schemas pinned by hash, a change refused until someone approves it.

A server that changes what a tool says after it was reviewed (a "rug pull") can turn an approved tool
into a poisoned one. The snapshot file pins, per tool, the SHA-256 of its description, input schema and
output schema (`pins`). A listing whose hash differs from its pin fails the drift gate, and
`--update-snapshots` does not accept it: only an approval does, recorded in the file with who, when and
why (`mcpbdd surface approve`, or `approve_changes` from Python), so the review is in the history.

    "pins": {"export_notes": {"sha256": "9f2c…", "approved": {"by": "ana", "at": "2026-12-01T10:00:00Z",
                                                             "why": "json export documented", "previous": "41aa…"}}}

A snapshot written before pins existed pins each tool by its recorded listing. Editing a listing in the
file by hand changes no pin: it is a change like any other, refused until approved.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mcpbdd.checks.surface_diff import Difference, diff_tools

__all__ = ["PINNED", "Unapproved", "approve", "pin_of", "pins_of", "token_deltas", "unapproved"]

PINNED = ("description", "inputSchema", "outputSchema")
"""What a pin covers: what a model reads to choose and call a tool, and what a client relies on back."""


def pin_of(listing: Mapping[str, Any]) -> str:
    """The SHA-256 of a listing's pinned parts (canonical JSON: sorted keys, no spaces)."""
    pinned = {key: listing.get(key) for key in PINNED}
    text = json.dumps(pinned, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def pins_of(tools: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A pin (unapproved: a first recording) for each tool of a surface's `tools`."""
    return {name: {"sha256": pin_of(listing)} for name, listing in sorted(tools.items())}


def _pinned(recorded: Mapping[str, Any], name: str) -> str:
    pin = (recorded.get("pins") or {}).get(name)
    if isinstance(pin, dict) and isinstance(pin.get("sha256"), str):
        return str(pin["sha256"])
    return pin_of(recorded["tools"][name])


@dataclass(frozen=True)
class Unapproved:
    """A tool whose pinned parts changed since its pin: the hashes and what changed (as the recorded listing
    differs from the current one)."""

    tool: str
    pinned: str
    now: str
    differences: tuple[Difference, ...]

    def __str__(self) -> str:
        changes = "".join(f"\n    {d}" for d in self.differences) or "\n    (the file's listing was edited by hand)"
        return f"  {self.tool}: pinned {self.pinned[:12]}…, now {self.now[:12]}…, not approved:{changes}"


def unapproved(recorded: Mapping[str, Any], current: Mapping[str, Any]) -> list[Unapproved]:
    """Each tool in both surfaces whose current pinned parts differ from its pin in `recorded`."""
    found: list[Unapproved] = []
    for name in sorted(set(recorded["tools"]) & set(current["tools"])):
        pinned, now = _pinned(recorded, name), pin_of(current["tools"][name])
        if pinned != now:
            changes = [
                d
                for d in diff_tools(name, recorded["tools"][name], current["tools"][name])
                if d.path.split(".")[1] in PINNED
            ]
            found.append(Unapproved(name, pinned, now, tuple(changes)))
    return found


def approve(
    recorded: dict[str, Any],
    current: Mapping[str, Any],
    *,
    by: str,
    why: str,
    names: Sequence[str] | None = None,
    at: datetime | None = None,
) -> list[Unapproved]:
    """Record an approval of each unapproved change (of `names`, default all) in `recorded`: the tool's current
    listing and its new pin with who, when and why. ValueError names a missing `by`/`why` or a tool with no
    change to approve. Returns what was approved."""
    if not by.strip() or not why.strip():
        raise ValueError("an approval names who approves (--by) and why (--why)")
    pending = {change.tool: change for change in unapproved(recorded, current)}
    chosen = list(names) if names else sorted(pending)
    for name in chosen:
        if name not in pending:
            waiting = ", ".join(sorted(pending)) or "none"
            raise ValueError(f"the tool {name!r} has no unapproved change (tools waiting for approval: {waiting})")
    when = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    pins = {**pins_of(recorded["tools"]), **(recorded.get("pins") or {})}
    for name in chosen:
        change = pending[name]
        recorded["tools"][name] = current["tools"][name]
        approval = {"by": by.strip(), "at": when, "why": why.strip(), "previous": change.pinned}
        pins[name] = {"sha256": change.now, "approved": approval}
    recorded["pins"] = dict(sorted(pins.items()))
    return [pending[name] for name in chosen]


def token_deltas(old: Mapping[str, Any], new: Mapping[str, Any], names: Sequence[str]) -> str:
    """Each named tool's token cost before and after, and the surface's (`export_notes 55 → 61 (+6)`)."""
    from mcpbdd.surface_lint.tokens import tool_tokens

    def cost(tools: Mapping[str, Any], name: str) -> int:
        return tool_tokens({"name": name, **tools[name]}) if name in tools else 0

    def delta(before: int, after: int) -> str:
        return f"{before} → {after} ({after - before:+d})"

    old_tools, new_tools = old.get("tools", {}), new.get("tools", {})
    parts = [f"{name} {delta(cost(old_tools, name), cost(new_tools, name))}" for name in sorted(set(names))]
    total = delta(sum(cost(old_tools, n) for n in old_tools), sum(cost(new_tools, n) for n in new_tools))
    return f"tokens: {', '.join(parts)}; the surface {total}" if parts else f"tokens: the surface {total}"
