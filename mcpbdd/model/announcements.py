"""What a server announces on its own (list changes and updated resources), as data every layer shares.

A client listens for changes (the tools, prompts or resources list, or one resource); the era
decides the wire. On 2026-07-28 a listen is one `subscriptions/listen` request whose response is
a stream: the server's acknowledgement comes first, every frame carries the listen's id in
`_meta["io.modelcontextprotocol/subscriptionId"]`, and no kind the client did not ask for may
arrive. On 2025-11-25 list changes are session notifications and a resource is subscribed to with
`resources/subscribe`; there is no acknowledgement and no id.

A `Listen` holds the `Frame`s its connection received since it opened, in the order they arrived
(what the harness captured below the SDK client, which drops a mis-tagged or unrequested frame
without a word). The checks of them are `mcpbdd.checks.announcements`; what stays here is what the
harnesses need below the checks: the topics, frames and listens, what a server's capabilities say
against announcing (`undeclared`) and the failure of a listen no client would make (`cannot_listen`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ACKNOWLEDGED",
    "LISTS",
    "RESOURCE_UPDATED",
    "STREAM_METHODS",
    "SUBSCRIPTION_ID_KEY",
    "Frame",
    "Listen",
    "Topic",
    "announcement_of",
    "cannot_listen",
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
