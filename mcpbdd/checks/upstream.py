"""The checks of what a server sent its upstreams that only a scenario's own words can make vacuous
(`mcpbdd/steps/upstream.py`); the requests themselves are checked by `mcpbdd.upstream`, which recorded them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcpbdd.checks.guards import needs_content
from mcpbdd.model.errors import VacuousCheck


def upstream_can_receive(origin: str, declared: Sequence[str], calls: int) -> None:
    """A "received nothing" check means something only after a call, and only for an origin a route answers.

    A request no route matches already fails the call that sent it, so for an origin no route
    names, "it received no request" is true of every scenario that gets this far.
    """
    if calls == 0:
        raise VacuousCheck(
            f"No call has been made yet in this scenario, so the server cannot have sent {origin} anything: "
            "put this step after the calls it is about"
        )
    if origin not in declared:
        raise VacuousCheck(
            f"No route in this scenario answers for {origin} (routes answer for: {', '.join(declared) or 'none'}), "
            "so any request to it would already have failed the call that sent it and this check cannot fail: "
            f'check the origin, or declare what it answers (Given the upstream "{origin}" answers ...)'
        )


def upstream_body_names_something(expected: Any) -> None:
    """A body check of `{}` (or `#ignore`) holds for every JSON body: it checks nothing."""
    needs_content(
        expected,
        contains=True,
        what="JSON body",
        instead="use 'received POST \"/path\" 1 time' when the request is all that matters",
    )


__all__ = [
    "upstream_body_names_something",
    "upstream_can_receive",
]
