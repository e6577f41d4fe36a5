"""Assertions about what a server announces on its own: list changes and updated resources.

A client listens for changes (the tools, prompts or resources list, or one resource); the era
decides the wire. On 2026-07-28 a listen is one `subscriptions/listen` request whose response is
a stream: the server's acknowledgement comes first, every frame carries the listen's id in
`_meta["io.modelcontextprotocol/subscriptionId"]`, and no kind the client did not ask for may
arrive. On 2025-11-25 list changes are session notifications and a resource is subscribed to with
`resources/subscribe`; there is no acknowledgement and no id.

The checks take plain data: `Listen`s, each with the `Frame`s its connection received since it
opened, in the order they arrived (what the harness captured below the SDK client, which drops a
mis-tagged or unrequested frame without a word). Every failure names each frame that arrived, so
a reader sees what the server did. A check that could pass while checking nothing ("announces
nothing" with no listen open, or no call after it) raises `VacuousCheck`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpbdd.model.errors import VacuousCheck

__all__ = [
    "ACKNOWLEDGED",
    "LEGACY_HINT",
    "LISTS",
    "RESOURCE_UPDATED",
    "STREAM_METHODS",
    "SUBSCRIPTION_ID_KEY",
    "Frame",
    "Listen",
    "Topic",
    "announced",
    "announced_nothing",
    "announcement_of",
    "cannot_listen",
    "check_protocol",
    "needs_listen",
    "undeclared",
]

SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
"""The `_meta` key every frame of a 2026-07-28 listen carries: the `subscriptions/listen` request's id."""
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
RESOURCE_UPDATED = "notifications/resources/updated"
LISTS = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
}
"""The lists a client can listen to, with the method that announces a change of each."""
STREAM_METHODS = frozenset({ACKNOWLEDGED, RESOURCE_UPDATED, *LISTS.values()})
"""The notifications a listen is about: what the harness keeps of a connection's notifications."""


@dataclass(frozen=True)
class Topic:
    """What a client listens for: a list (`tools`, `prompts`, `resources`) or one resource (`uri`)."""

    list: str | None = None
    uri: str | None = None

    @classmethod
    def of_list(cls, name: str) -> Topic:
        normal = name.strip().lower()
        if normal not in LISTS:
            raise ValueError(f"there is no {name!r} list to listen to: use one of {', '.join(LISTS)}")
        return cls(list=normal)

    @classmethod
    def resource(cls, uri: str) -> Topic:
        if not uri.strip():
            raise ValueError("the resource's URI is empty: name the resource to listen to")
        return cls(uri=uri)

    def wire_filter(self) -> dict[str, Any]:
        """The `SubscriptionFilter` fields a listen for this topic asks (`Client.listen`'s keywords alike)."""
        if self.list is not None:
            return {f"{self.list}_list_changed": True}
        return {"resource_subscriptions": [self.uri]}

    def __str__(self) -> str:
        return f"the {self.list} list" if self.list is not None else f'the resource "{self.uri}"'

    def covers(self, announced: Topic) -> bool:
        """Whether a listen for this topic asked for `announced` (a sub-resource of a resource is its own)."""
        if self.list is not None or announced.list is not None:
            return self.list == announced.list
        assert self.uri is not None and announced.uri is not None
        return announced.uri == self.uri or announced.uri.startswith(self.uri.rstrip("/") + "/")


@dataclass(frozen=True)
class Frame:
    """One notification a listening connection received: its method, params, and how many calls had been answered
    when it arrived (a frame sent during a call arrives before that call's answer, or just after it)."""

    method: str
    params: Mapping[str, Any] = field(default_factory=dict)
    after_calls: int = 0

    @property
    def tag(self) -> Any:
        """The subscription id in the frame's `_meta` (None: untagged)."""
        meta = self.params.get("_meta")
        return meta.get(SUBSCRIPTION_ID_KEY) if isinstance(meta, Mapping) else None

    @property
    def topic(self) -> Topic | None:
        """What the frame announces changed (None for an acknowledgement, or a resource update without a URI)."""
        return announcement_of(self.method, self.params)

    def journal_entry(self) -> tuple[str, dict[str, Any]]:
        """What the scenario's journal of things heard records of it (a short kind, then plain JSON)."""
        topic = self.topic
        if self.method == ACKNOWLEDGED:
            kind = "listen acknowledged"
        elif topic is not None and topic.list is not None:
            kind = f"{topic.list} list changed"
        elif topic is not None:
            kind = "resource updated"
        else:
            kind = self.method
        return kind, {"method": self.method, "params": dict(self.params), "after_calls": self.after_calls}

    def __str__(self) -> str:
        if self.method == ACKNOWLEDGED:
            what = f"the acknowledgement ({self.params.get('notifications')})"
        elif self.topic is not None:
            what = f"{self.topic} changed".replace("the ", "", 1)
        else:
            what = self.method
        tag = f" tagged {self.tag!r}" if self.tag is not None else ""
        when = f"after call {self.after_calls} was answered" if self.after_calls else "before any call was answered"
        return f"{what}{tag} ({when})"


def announcement_of(method: str, params: Mapping[str, Any]) -> Topic | None:
    """The topic a notification says changed, or None."""
    for name, announcing in LISTS.items():
        if method == announcing:
            return Topic(list=name)
    if method == RESOURCE_UPDATED and isinstance(params.get("uri"), str):
        return Topic(uri=params["uri"])
    return None


@dataclass(frozen=True)
class Listen:
    """One listen of the scenario: what it asked, on which era, and what its connection received since it opened.

    `subscription_id` is the listen request's id on 2026-07-28 (None on 2025-11-25); `others` are
    the ids of the connection's other open listens (a frame tagged with one of them is theirs);
    `opened_after` is how many calls the scenario had made when it opened.
    """

    topic: Topic
    modern: bool
    subscription_id: Any
    frames: tuple[Frame, ...]
    opened_after: int = 0
    caller: str = "the client"
    others: frozenset[Any] = frozenset()
    declared: str | None = None
    """What the server declared against announcing the topic (`undeclared`), when it promised no announcement."""

    def __str__(self) -> str:
        tag = f" ({self.subscription_id!r})" if self.subscription_id is not None else ""
        return f"{self.caller}'s listen for {self.topic}{tag}"

    @property
    def own(self) -> tuple[Frame, ...]:
        """The frames that are this listen's: tagged with its id on 2026-07-28; of its topic on 2025-11-25."""
        if self.modern:
            return tuple(frame for frame in self.frames if frame.tag == self.subscription_id)
        return tuple(frame for frame in self.frames if frame.topic is not None and self.topic.covers(frame.topic))

    def heard(self) -> str:
        """Every frame the listen's connection received since it opened, for messages."""
        if not self.frames:
            return f"{self} received nothing"
        return f"{self} received: " + "; ".join(str(frame) for frame in self.frames)


def undeclared(topic: Topic, capabilities: Any) -> str | None:
    """What a server's capabilities (`ServerCapabilities`) say against announcing changes to `topic`, or None when
    they promise it: `tools.listChanged` for a list, `resources.subscribe` for a resource (on either era; on
    2026-07-28 the SDK derives both from whether the server serves `subscriptions/listen`)."""
    if topic.uri is not None:
        resources = getattr(capabilities, "resources", None)
        if resources is None:
            return "the server declared no resources capability"
        return None if resources.subscribe else "the server declared resources.subscribe: false"
    assert topic.list is not None
    kind = getattr(capabilities, topic.list, None)
    if kind is None:
        return f"the server declared no {topic.list} capability"
    return None if kind.list_changed else f"the server declared {topic.list}.listChanged: false"


def cannot_listen(topic: Topic, declared: str, era: str) -> AssertionError:
    """A listen refused before any request, because the server declared it will not announce `topic` (on `era`)."""
    how = (
        "serve resources/subscribe"
        if era < "2026" and topic.uri is not None
        else "serve subscriptions/listen (an MCPServer made with subscriptions=False serves none)"
    )
    return AssertionError(
        f"No client can listen for changes to {topic}: {declared} in its capabilities ({era}), so a client does "
        f"not ask; to announce them, {how}"
    )


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
