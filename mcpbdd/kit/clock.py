"""The clock that storage TTLs, consent records and the server under test read.

A scenario says "When 2 hours pass" and expects a TTL to lapse without anybody
sleeping, so everything time-dependent reads an injected `Clock` instead of calling
`datetime.now()`. Production code gets `SystemClock`; a scenario gets `FrozenClock`,
which moves only when told to.

Every instant is timezone-aware UTC: a naive datetime is refused, because a naive value
silently means "local time of whichever machine ran CI", which is how flaky TTL tests
are born.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

__all__ = [
    "DEFAULT_FROZEN_START",
    "Clock",
    "FrozenClock",
    "SystemClock",
    "parse_duration",
    "parse_instant",
]

DEFAULT_FROZEN_START = datetime(2026, 1, 1, tzinfo=UTC)
"""Where a `FrozenClock` starts unless told otherwise: a fixed, readable instant."""


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the current instant (timezone-aware, UTC)."""

    def now(self) -> datetime: ...


def _require_aware(moment: datetime, what: str) -> datetime:
    """Refuse naive datetimes (they mean 'local time somewhere'); normalise to UTC."""
    if not isinstance(moment, datetime):
        raise TypeError(f"{what} must be a datetime, got {type(moment).__name__}: {moment!r}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(
            f"{what} {moment.isoformat()!r} has no timezone; give an aware datetime "
            "(e.g. datetime(2026, 3, 1, 9, tzinfo=UTC)) so the instant is unambiguous"
        )
    return moment.astimezone(UTC)


class SystemClock:
    """Real time, for production: `now()` is the machine's current UTC instant."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def timestamp(self) -> float:
        """Seconds since the epoch; the storage hot path reads this to skip datetime math."""
        return time.time()

    def __repr__(self) -> str:
        return "SystemClock()"


class FrozenClock:
    """A clock that moves only when a scenario says so ("When 2 hours pass")."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = DEFAULT_FROZEN_START if start is None else _require_aware(start, "FrozenClock start")
        self._stamp = self._now.timestamp()

    def now(self) -> datetime:
        return self._now

    def timestamp(self) -> float:
        """Seconds since the epoch of the frozen instant (cached: read on every storage call)."""
        return self._stamp

    def advance(self, delta: timedelta | float) -> datetime:
        """Move forward by `delta` (a timedelta or seconds) and return the new instant.

        Moving backwards through `advance` is refused: a negative delta is almost always a
        sign error in a step; use `set()` to jump to an earlier instant on purpose.
        """
        if not isinstance(delta, timedelta):
            if isinstance(delta, bool) or not isinstance(delta, int | float):
                raise TypeError(f"advance() takes a timedelta or seconds, got {type(delta).__name__}: {delta!r}")
            delta = timedelta(seconds=delta)
        if delta < timedelta(0):
            raise ValueError(f"advance() moves forward only, got {delta!r}; use set() to move the clock back")
        self._now = self._now + delta
        self._stamp = self._now.timestamp()
        return self._now

    def set(self, moment: datetime) -> None:
        """Jump to `moment` (aware; stored as UTC), forwards or backwards."""
        self._now = _require_aware(moment, "FrozenClock.set() moment")
        self._stamp = self._now.timestamp()

    def __repr__(self) -> str:
        return f"FrozenClock({self._now.isoformat()!r})"


_WORD_UNITS: dict[str, str] = {
    "second": "seconds",
    "seconds": "seconds",
    "minute": "minutes",
    "minutes": "minutes",
    "hour": "hours",
    "hours": "hours",
    "day": "days",
    "days": "days",
}
_COMPACT_UNITS: dict[str, str] = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
_DURATION_RE = re.compile(r"(?P<amount>\d+(?:\.\d+)?)(?:(?P<compact>[smhd])|\s+(?P<word>[a-z]+))")
_DURATION_FORMS = (
    '"30 seconds", "1 second", "15 minutes", "2 hours", "1 day", "3 days", or compact "90s", "15m", "2h", "1d"'
)


def parse_duration(text: str) -> timedelta:
    """Read a duration as a specification writes it: "15 minutes", "2 hours", "90s".

    Strict on purpose: "5 weeks" or "5" is a typo to report, not a guess to make.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_duration() takes a string, got {type(text).__name__}: {text!r}")
    match = _DURATION_RE.fullmatch(text.strip().lower())
    unit = None
    if match is not None:
        unit = _COMPACT_UNITS[match["compact"]] if match["compact"] else _WORD_UNITS.get(match["word"])
    if match is None or unit is None:
        raise ValueError(f"cannot read {text!r} as a duration; write a number and a unit: {_DURATION_FORMS}")
    return timedelta(**{unit: float(match["amount"])})


def parse_instant(text: str) -> datetime:
    """Read an ISO-8601 instant ("2026-03-01T09:00:00Z", "2026-03-01T10:00:00+01:00") as aware UTC.

    A value without a timezone is refused: "09:00" on the CI runner and on a laptop in
    another zone are different instants.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_instant() takes a string, got {type(text).__name__}: {text!r}")
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"cannot read {text!r} as an ISO-8601 instant; write e.g. '2026-03-01T09:00:00Z' "
            "or '2026-03-01T10:00:00+01:00'"
        ) from None
    if moment.tzinfo is None:
        raise ValueError(
            f"the instant {text!r} has no timezone; add 'Z' for UTC (e.g. '{text.strip()}Z') or an offset like '+01:00'"
        )
    return moment.astimezone(UTC)
