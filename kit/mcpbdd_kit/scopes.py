"""The scopes each tool needs, declared once: the HTTP edge's 403 and the tool's own check read the same table.

A server that is reached over HTTP behind `protect()` refuses a call without the tool's scopes at the
edge (403 `insufficient_scope`); the same server in-process, over stdio, or behind a gateway that does
not run `protect()` has only the tool itself to refuse. Two tables drift; one does not:

    SCOPES = ToolScopes({"approve_expense": ["expenses:approve"]})

    @mcp.tool()
    @SCOPES.required
    async def approve_expense(expense_id: str) -> Expense: ...

    protect(app, verifier, resource_url=..., authorization_servers=[...], tool_scopes=SCOPES)

The tool's check reads the caller's access token (`get_access_token()`, which the SDK's auth middleware
and mcpbdd's harnesses fill): a token without the scopes gets the tool error `insufficient_scope`
naming them, before the tool runs. A call with no token at all is refused too (fail closed), unless
the declaration says whose scopes a caller without one has (`without_token=`, e.g. a stdio server that
serves its one local user, who holds every scope).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ParamSpec, TypeVar

from mcp.server.auth.middleware.auth_context import get_access_token

from mcpbdd_kit.errors import Failure, tool_failure

__all__ = ["INSUFFICIENT_SCOPE", "ToolScopes"]

P = ParamSpec("P")
R = TypeVar("R")

INSUFFICIENT_SCOPE = Failure(
    "insufficient_scope",
    "This tool needs a scope the caller's token lacks.",
    hint="Sign in again asking for the scopes this tool needs.",
)
"""The tool error a call without the tool's scopes gets (the 403 `insufficient_scope` of the HTTP edge)."""


class ToolScopes(Mapping[str, tuple[str, ...]]):
    """Tool name -> the scopes a token needs to call it (a tool not listed needs a valid token only)."""

    def __init__(
        self, scopes: Mapping[str, Iterable[str]], *, without_token: Callable[[], Iterable[str]] | None = None
    ) -> None:
        self._scopes = {tool: tuple(needed) for tool, needed in scopes.items()}
        for tool, needed in self._scopes.items():
            if not needed or not all(isinstance(scope, str) and scope and " " not in scope for scope in needed):
                raise ValueError(f"the scopes of {tool!r} must be non-empty scope names without spaces: {needed!r}")
        self._without_token = without_token

    def __getitem__(self, tool: str) -> tuple[str, ...]:
        return self._scopes[tool]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scopes)

    def __len__(self) -> int:
        return len(self._scopes)

    def missing(self, tool: str) -> list[str]:
        """The scopes `tool` needs that the current caller does not hold ([] when it may call it)."""
        needed = self._scopes.get(tool, ())
        if not needed:
            return []
        token = get_access_token()
        if token is not None:
            granted = set(token.scopes)
        elif self._without_token is not None:
            granted = set(self._without_token())
        else:
            granted = set()
        return [scope for scope in needed if scope not in granted]

    def required(self, fn: Callable[P, R] | None = None, *, tool: str | None = None) -> Any:
        """Decorate a tool (under `@mcp.tool()`) so that it refuses a caller without its declared scopes.

        The tool's name is the function's (or `tool=`); a name the table does not declare is refused
        at once, so a typo cannot leave a tool unguarded.
        """
        if fn is None:
            return functools.partial(self.required, tool=tool)
        name = tool or fn.__name__
        if name not in self._scopes:
            raise ValueError(f"{name!r} has no scopes declared (declared: {', '.join(sorted(self._scopes)) or 'none'})")

        def refusal() -> Any:
            missing = self.missing(name)
            if not missing:
                return None
            return tool_failure(
                INSUFFICIENT_SCOPE, f"{name} needs the scope {' '.join(missing)}, which the caller lacks."
            )

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def guarded(*args: Any, **kwargs: Any) -> Any:
                refused = refusal()
                return refused if refused is not None else await fn(*args, **kwargs)

            return guarded

        @functools.wraps(fn)
        def guarded_sync(*args: Any, **kwargs: Any) -> Any:
            refused = refusal()
            return refused if refused is not None else fn(*args, **kwargs)

        return guarded_sync

    def __repr__(self) -> str:
        return f"ToolScopes({self._scopes!r})"
