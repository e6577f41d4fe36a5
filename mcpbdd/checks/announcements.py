"""The checks of what a server announces on its own, list changes and updated resources (`steps/announcements.py`).

They take plain data (`mcpbdd.model.announcements`): `Listen`s, each with the `Frame`s its connection received
since it opened, in the order they arrived. Each 2026-07-28 listen must get its acknowledgement first, only frames
tagged with its id and only the kinds it asked for; on 2025-11-25, no update of a resource nobody subscribed to.
Every failure names each frame that arrived, so a reader sees what the server did. A check that could pass while
checking nothing ("announces nothing" with no listen open, or no call after it) raises `VacuousCheck`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpbdd.model.announcements import ACKNOWLEDGED, SUBSCRIPTION_ID_KEY, Listen, Topic
from mcpbdd.model.errors import VacuousCheck

__all__ = ["LEGACY_HINT", "announced", "announced_nothing", "check_protocol", "needs_listen"]


def needs_listen(listens: Sequence[Listen], topic: Topic | None, phrase: str) -> list[Listen]:
    """The listens a check is about (those for `topic`, or all); none open is a broken specification."""
    chosen = [listen for listen in listens if topic is None or listen.topic.covers(topic)]
    if not chosen:
        what = str(topic) if topic is not None else "anything"
        example = (
            f"When the client listens for changes to {topic}"
            if topic is not None
            else ("When the client listens for changes to the tools list")
        )
        raise VacuousCheck(
            f"'{phrase}' is about what a listen received, but no listen for {what} is open in this scenario, so "
            f"the server had no one to announce to: add '{example}' before the step that makes the change"
        )
    return chosen


def check_protocol(listens: Sequence[Listen]) -> None:
    """Each 2026-07-28 listen got its acknowledgement first, only frames tagged with a listen's id, and only the
    kinds it asked for; on 2025-11-25, no update of a resource nobody subscribed to."""
    for listen in listens:
        if listen.modern:
            _check_stream(listen)
        else:
            for frame in listen.frames:
                topic = frame.topic
                if topic is not None and topic.uri is not None and not _subscribed(listens, listen, topic):
                    raise AssertionError(
                        f"The server announced that {topic} changed, which no listen subscribed to: {listen.heard()}"
                    )


def _subscribed(listens: Sequence[Listen], listen: Listen, topic: Topic) -> bool:
    return any(other.caller == listen.caller and other.topic.covers(topic) for other in listens)


def _check_stream(listen: Listen) -> None:
    own = listen.own
    if own and own[0].method != ACKNOWLEDGED:
        raise AssertionError(
            f"Expected the server's acknowledgement as the first frame of {listen}, but the first was {own[0]}: "
            f"{listen.heard()}"
        )
    for frame in listen.frames:
        if frame.tag is None:
            raise AssertionError(
                f"Expected every frame of {listen} to carry its subscription id in _meta[{SUBSCRIPTION_ID_KEY!r}], "
                f"but {frame} carries none: {listen.heard()}"
            )
        if frame.tag != listen.subscription_id and frame.tag not in listen.others:
            raise AssertionError(
                f"Expected every frame of {listen} to be tagged {listen.subscription_id!r}, but {frame} is tagged "
                f"with an id no listen of this client has: {listen.heard()}"
            )
    for frame in own:
        topic = frame.topic
        if topic is not None and not listen.topic.covers(topic):
            raise AssertionError(
                f"The server sent {listen} a kind it did not ask for ({topic} changed): {listen.heard()}"
            )


def announced(listens: Sequence[Listen], topic: Topic, *, waited: float) -> None:
    """Some listen for `topic` received the announcement that it changed (after checking the protocol)."""
    phrase = f"the server announces that {topic} changed"
    chosen = needs_listen(listens, topic, phrase)
    check_protocol(listens)
    for listen in chosen:
        if any(frame.topic is not None and topic.covers(frame.topic) for frame in listen.own):
            return
    heard = "; ".join(listen.heard() for listen in chosen)
    declared = [listen.declared for listen in chosen if listen.declared is not None]
    if len(declared) == len(chosen):
        raise AssertionError(
            f"Expected the server to announce that {topic} changed (waited {waited:g} s), but {declared[0]} in its "
            f"capabilities, so a client does not expect it: {heard}"
        )
    hint = LEGACY_HINT if not any(listen.modern for listen in chosen) else ""
    raise AssertionError(
        f"Expected the server to announce that {topic} changed (waited {waited:g} s), but {heard}{hint}"
    )


LEGACY_HINT = (
    " (on 2025-11-25 a server announces on the caller's connection, e.g. "
    "`ctx.session.send_tool_list_changed()` or `send_resource_updated(uri)`: the SDK's "
    "`ctx.notify_tools_changed()` and `ctx.notify_resource_updated()` reach only 2026-07-28 listens)"
)
"""Why a Python server that announces on 2026-07-28 may say nothing on 2025-11-25: the SDK's ctx.notify_* publish
only on the subscription bus (mcp 2.3), which a handshake-era connection never reads."""


def announced_nothing(listens: Sequence[Listen], calls: int) -> None:
    """No listen received an announcement of what it asked for; needs an open listen and a call after it."""
    chosen = needs_listen(listens, None, "the server announces nothing")
    if not any(calls > listen.opened_after for listen in chosen):
        raise VacuousCheck(
            "'the server announces nothing' is only a claim after a listen was open and something happened after "
            "it, but no call was made since the listen opened, so the server had nothing to announce: put a When "
            "step that calls the server between the listen and this check"
        )
    check_protocol(listens)
    for listen in chosen:
        told = [frame for frame in listen.own if frame.topic is not None]
        if told:
            raise AssertionError(
                f"Expected the server to announce nothing, but it announced that {told[0].topic} changed: "
                f"{listen.heard()}"
            )
