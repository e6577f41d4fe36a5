"""The names mcpbdd's settings, tags and command line share: harness kinds, client modes, capabilities.

Each is defined here once, as a `StrEnum`, so a setting read from pyproject.toml, a
`-D mcpbdd.*` value, a scenario tag and a `--harness` option are all checked against
the same list and compare equal to the plain strings they came from. This module
imports no SDK (nor anything else outside the standard library): the command line
reads it before it decides which process imports the SDK.

    @harness.context        the scenario runs on the context harness
    @harness.client         ... on the client harness (in whatever client mode is configured)
    @harness.client.legacy  ... on the client harness, speaking 2025-11-25 (`@harness.client.auto`: 2026-07-28)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Any, Final, TypeVar

__all__ = [
    "CAPABILITIES",
    "LEGACY_ERA",
    "MODERN_ERA",
    "HARNESS_TAG",
    "Capability",
    "ClientMode",
    "HarnessKind",
    "check_capabilities",
    "check_harness_tags",
    "client_mode",
    "era_of",
    "harness_kind",
    "harness_label",
    "harness_tag",
    "harness_tags",
    "parse_harness_tag",
]


class HarnessKind(StrEnum):
    """How a scenario reaches the server."""

    CONTEXT = "context"
    """The server's handlers called with a real SDK Context, no transport."""
    CLIENT = "client"
    """A real `mcp.Client`: in-process, over stdio or over HTTP."""


class ClientMode(StrEnum):
    """What the client harness's `mcp.Client` speaks (the SDK's `Client(mode=...)`)."""

    AUTO = "auto"
    """The modern per-request protocol (2026-07-28), falling back to the handshake if the server needs it."""
    LEGACY = "legacy"
    """The initialize handshake (2025-11-25): a server asks its questions mid-call."""


class Capability(StrEnum):
    """A client capability a scenario can declare by name."""

    ELICITATION = "elicitation"
    SAMPLING = "sampling"
    ROOTS = "roots"


CAPABILITIES: Final[tuple[Capability, ...]] = tuple(Capability)
"""Every capability: what a client declares unless a scenario or the settings say otherwise."""

HARNESS_TAG: Final = "harness."
"""The prefix of the tags that pin a scenario (or a feature) to a harness."""

_E = TypeVar("_E", bound=StrEnum)


def _choose(enum: type[_E], value: str, what: str) -> _E:
    try:
        return enum(value)
    except ValueError:
        raise ValueError(f"unknown {what} {value!r}: use one of {', '.join(enum)}") from None


def harness_kind(value: str) -> HarnessKind:
    """`value` as a harness kind; a ValueError naming the kinds otherwise."""
    return _choose(HarnessKind, value, "harness")


def client_mode(value: str) -> ClientMode:
    """`value` as a client mode; a ValueError naming the modes otherwise."""
    return _choose(ClientMode, value, "client mode")


def check_capabilities(names: Iterable[str]) -> tuple[Capability, ...]:
    """The capabilities `names` declares, in their order, once each; a ValueError naming any unknown one."""
    chosen = list(dict.fromkeys(names))
    unknown = [name for name in chosen if name not in CAPABILITIES]
    if unknown:
        raise ValueError(f"unknown capabilities {unknown}: use any of {', '.join(CAPABILITIES)}")
    return tuple(Capability(name) for name in chosen)


def harness_tag(kind: HarnessKind | str, mode: ClientMode | str | None = None) -> str:
    """The tag (without `@`) pinning a scenario to `kind` (and, for the client harness, to `mode`)."""
    kind = harness_kind(kind)
    if mode is None:
        return f"{HARNESS_TAG}{kind}"
    if kind is not HarnessKind.CLIENT:
        raise ValueError(f"only the client harness has modes, not the {kind} harness")
    return f"{HARNESS_TAG}{kind}.{client_mode(mode)}"


def harness_tags(kind: HarnessKind | str) -> tuple[str, ...]:
    """Every tag that pins a scenario to `kind`, in any mode."""
    kind = harness_kind(kind)
    modes: tuple[ClientMode | None, ...] = (None, *ClientMode) if kind is HarnessKind.CLIENT else (None,)
    return tuple(harness_tag(kind, mode) for mode in modes)


def parse_harness_tag(tag: str) -> tuple[HarnessKind, ClientMode | None] | None:
    """The harness (and mode) a tag pins, None for a tag about something else; a ValueError for a misspelt one."""
    if not tag.startswith(HARNESS_TAG):
        return None
    for kind in HarnessKind:
        for mode in (None, *ClientMode):
            if mode is not None and kind is not HarnessKind.CLIENT:
                continue
            if tag == harness_tag(kind, mode):
                return kind, mode
    *others, last = (f"@{harness_tag(*pair)}" for pair in _DOCUMENTED_TAGS)
    raise ValueError(f"unknown harness tag @{tag}: use {', '.join(others)} or {last}")


def check_harness_tags(feature: Any) -> None:
    """Every harness tag in a parsed behave feature is known; a ValueError naming the file and line of each that is not.

    The tags are read where they are written (the feature, its rules, scenarios and
    Examples), not from the scenarios behave builds, because an outline's scenarios carry
    their Examples' tags without a line. Duck-typed on behave's model, so the command line
    can check a feature without importing behave's runner or the SDK.
    """
    errors: list[tuple[int, str]] = []
    for node in _tagged(feature):
        for tag in getattr(node, "tags", ()):
            try:
                parse_harness_tag(tag)
            except ValueError as exc:
                line: int = getattr(tag, "line", 0) or getattr(node, "line", 0)
                errors.append((line, f"{feature.filename}:{line}: {exc}"))
    if errors:
        raise ValueError("\n".join(message for _line, message in sorted(errors)))


def _tagged(node: Any) -> Iterator[Any]:
    """`node` and everything under it that can carry tags: rules, scenarios, outlines, Examples.

    An outline's own `scenarios` are the ones behave generates from its Examples: skipped.
    """
    yield node
    examples = tuple(getattr(node, "examples", ()))
    scenarios = () if examples else tuple(getattr(node, "scenarios", ()))
    for child in (*getattr(node, "rules", ()), *scenarios, *examples):
        yield from _tagged(child)


_DOCUMENTED_TAGS: Final = (
    (HarnessKind.CONTEXT, None),
    (HarnessKind.CLIENT, None),
    (HarnessKind.CLIENT, ClientMode.LEGACY),
)
"""The tags the error message suggests (`@harness.client.auto` works too, but is the usual mode anyway)."""


def harness_label(kind: HarnessKind | str, mode: ClientMode | str, *, noun: str = "") -> str:
    """How reports name a harness: `context`, `client`, or `client, legacy` (the pass that speaks 2025-11-25).

    A `noun` follows the kind: `client harness, legacy`. The auto mode goes unsaid, being the usual one.
    """
    kind = harness_kind(kind)
    head = f"{kind} {noun}" if noun else str(kind)
    if kind is HarnessKind.CLIENT and client_mode(mode) is ClientMode.LEGACY:
        return f"{head}, {ClientMode.LEGACY}"
    return head


MODERN_ERA: Final = "2026-07-28"
LEGACY_ERA: Final = "2025-11-25"


def era_of(kind: HarnessKind | str, mode: ClientMode | str) -> str:
    """The protocol version a harness speaks: only the client harness in legacy mode uses the 2025-11-25 handshake."""
    if harness_kind(kind) is HarnessKind.CLIENT and client_mode(mode) is ClientMode.LEGACY:
        return LEGACY_ERA
    return MODERN_ERA
