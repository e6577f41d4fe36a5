"""Shrinking: the smallest input that still breaks the same verdict.

A failing generated input is often a 10,000-character string inside an object with five
other keys; the cause is usually one key and a few characters. Shrinking tries smaller
variants, as hypothesis does after a failing example, and keeps each that still fails
the same way: keys and items dropped, arrays emptied or halved, strings bisected to their
shortest failing prefix and made plain, numbers moved towards zero. Every try is a real
call, so the search stops after SHRINK_BUDGET calls.
"""

from __future__ import annotations

import contextlib
import copy
import logging
from collections.abc import Iterator
from typing import Any

from mcpbdd.checks.generated.adversarial import DEEP
from mcpbdd.checks.generated.calls import CallRunner
from mcpbdd.checks.generated.report import FailedCall, Shrunk

__all__ = ["SHRINK_BUDGET", "shrink"]

SHRINK_BUDGET = 200
"""At most this many extra calls to shrink one failing input."""

NodePath = tuple[Any, ...]


async def shrink(runner: CallRunner, failed: FailedCall) -> Shrunk:
    """The smallest variant of a failing input found (within SHRINK_BUDGET calls) that still fails the same way."""
    with _quiet_sdk_logs():  # shrinking repeats the same crash: its log adds nothing but noise
        state = _ShrinkState(runner, failed, SHRINK_BUDGET)
        current = copy.deepcopy(failed.arguments)
        progress = True
        while progress and state.budget > 0:
            progress = False
            for candidate in _structural_candidates(current):
                if await state.fails(candidate):
                    current, progress = candidate, True
                    break
            if progress:
                continue
            for path in list(_leaf_paths(current)):
                shrunk = await _shrink_leaf(state, current, path)
                if shrunk is not None:
                    current, progress = shrunk, True
        return Shrunk(failed.kind, current, state.detail, state.answer, state.used)


@contextlib.contextmanager
def _quiet_sdk_logs() -> Iterator[None]:
    """Silence the SDK's own loggers (not the server's) for a while: each crash logs a full traceback."""
    sdk = logging.getLogger("mcp")
    level = sdk.level
    sdk.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        sdk.setLevel(level)


class _ShrinkState:
    """Counts the calls shrinking spends and remembers what the last still-failing candidate got back."""

    def __init__(self, runner: CallRunner, failed: FailedCall, budget: int) -> None:
        self.runner = runner
        self.kind = failed.kind
        self.budget = budget
        self.used = 0
        self.detail = failed.detail
        self.answer = failed.answer

    async def fails(self, candidate: dict[str, Any]) -> bool:
        if self.budget <= 0:
            return False
        self.budget -= 1
        self.used += 1
        outcome, found = await self.runner.attempt(candidate)
        if self.kind in found:
            self.detail = self.runner.rules.redact(found[self.kind])
            answer = outcome.describe() if outcome is not None else self.runner.last_client_error
            self.answer = self.runner.rules.redact(answer)
            return True
        return False


def _structural_candidates(value: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Smaller documents: one key or item dropped, an array emptied or halved (outermost first)."""
    for path, node in _nodes(value):
        if isinstance(node, dict):
            for key in list(node):
                yield _replace(value, path, {k: v for k, v in node.items() if k != key})
        elif isinstance(node, list) and node:
            yield _replace(value, path, [])
            if len(node) > 2:
                yield _replace(value, path, node[: len(node) // 2])
            for index in range(min(len(node), 8)):
                yield _replace(value, path, node[:index] + node[index + 1 :])


async def _shrink_leaf(state: _ShrinkState, value: dict[str, Any], path: NodePath) -> dict[str, Any] | None:
    """Bisect a string to its shortest failing prefix and simplify its characters; move a number towards zero."""
    leaf = _get(value, path)
    best: dict[str, Any] | None = None
    if isinstance(leaf, str) and leaf:
        if await state.fails(_replace(value, path, "")):
            emptied: dict[str, Any] = _replace(value, path, "")
            return emptied
        low, high = 0, len(leaf)  # s[:low] passes, s[:high] fails
        while high - low > 1 and state.budget > 0:
            middle = (low + high) // 2
            if await state.fails(_replace(value, path, leaf[:middle])):
                high = middle
            else:
                low = middle
        shortest = leaf[:high]
        if high < len(leaf):
            best = _replace(value, path, shortest)
        plain = "a" * len(shortest)
        if shortest != plain and await state.fails(_replace(value, path, plain)):
            best = _replace(value, path, plain)
    elif isinstance(leaf, bool):
        if leaf and await state.fails(_replace(value, path, False)):
            best = _replace(value, path, False)
    elif isinstance(leaf, int | float) and leaf != 0:
        if await state.fails(_replace(value, path, 0)):
            zeroed: dict[str, Any] = _replace(value, path, 0)
            return zeroed
        current = leaf
        while state.budget > 0:
            smaller = int(current / 2) if isinstance(current, int) or abs(current) > 1 else 0
            if smaller == current or smaller == 0:
                break
            if not await state.fails(_replace(value, path, smaller)):
                break
            current = smaller
            best = _replace(value, path, current)
    return best


def _nodes(value: Any, path: NodePath = ()) -> Iterator[tuple[NodePath, Any]]:
    yield path, value
    if len(path) > DEEP + 10:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _leaf_paths(value: Any) -> Iterator[NodePath]:
    for path, node in _nodes(value):
        if not isinstance(node, dict | list) and node is not None:
            yield path


def _get(value: Any, path: NodePath) -> Any:
    for part in path:
        value = value[part]
    return value


def _replace(value: Any, path: NodePath, new: Any) -> Any:
    """A copy of `value` with the node at `path` replaced (only the nodes along the path are copied).

    Any node: the arguments' dict at the top, whatever lies along the path below it (a dict or a list).
    """
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copied: Any = dict(value)
    else:
        copied = list(value)
    copied[head] = _replace(value[head], rest, new)
    return copied
