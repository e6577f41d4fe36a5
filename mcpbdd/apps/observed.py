"""What a rendered view did, as the host saw it: the checks behind the app phrases read these records.

Kept apart from the browser so the failure messages (and the report's attachments) are plain
data: a console error, an uncaught exception, a failed initialization, a content-security
violation, a request no double answered, a link the view asked to open.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CSP_CONSOLE_MARK = "Content Security Policy"
"""Chromium's console error for a blocked load names the policy; those are violations, reported as such."""


@dataclass(frozen=True)
class Violation:
    """One content-security rule the view broke: the directive and what it tried to load."""

    directive: str
    url: str
    source: str = ""

    def describe(self) -> str:
        where = f" (from {self.source})" if self.source else ""
        return f"{self.directive} refused {self.url or 'an inline resource'}{where}"


@dataclass(frozen=True)
class ToolCallFromView:
    """A `tools/call` the view sent through the host, and what the server answered."""

    name: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None
    error: dict[str, Any] | None


@dataclass
class Observed:
    """Everything the host recorded for one opened view."""

    tool: str
    resource_uri: str
    console_errors: list[str] = field(default_factory=list)
    uncaught: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    initialize_failure: str | None = None
    tool_calls: list[ToolCallFromView] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    def console(self, kind: str, text: str) -> None:
        """A console message from any frame; errors are kept (a blocked load's is a violation, not an error)."""
        if kind == "error" and CSP_CONSOLE_MARK not in text:
            self.console_errors.append(text)

    def add_violation(self, violation: Violation) -> None:
        if violation not in self.violations:
            self.violations.append(violation)

    def errors(self) -> list[str]:
        """Every error, each named by its kind, in the order a reader fixes them."""
        found: list[str] = []
        if self.initialize_failure:
            found.append(f"initialization failed: {self.initialize_failure}")
        found += [f"uncaught exception: {text}" for text in self.uncaught]
        found += [
            f"console error: {text}" for text in self.console_errors if not _is_uncaught_echo(text, self.uncaught)
        ]
        found += [f"request refused (no upstream double answers it): {request}" for request in self.refused]
        return found

    def to_json(self) -> dict[str, Any]:
        """The attachment: what the view and host said, and what went wrong."""
        return {
            "tool": self.tool,
            "resource": self.resource_uri,
            "errors": self.errors(),
            "csp_violations": [v.describe() for v in self.violations],
            "tool_calls": [{"name": c.name, "arguments": c.arguments, "error": c.error} for c in self.tool_calls],
            "links": self.links,
            "messages": self.messages,
            "view_host_messages": self.log,
        }


def _is_uncaught_echo(text: str, uncaught: list[str]) -> bool:
    """Chromium also prints an uncaught exception as a console error: name it once, as uncaught."""
    return any(exception and exception in text for exception in uncaught)


__all__ = ["CSP_CONSOLE_MARK", "Observed", "ToolCallFromView", "Violation"]
