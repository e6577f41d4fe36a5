"""The clock that storage TTLs, consent records and the server under test read.

A scenario says "When 2 hours pass" and expects a TTL to lapse without anybody
sleeping, so everything time-dependent reads an injected `Clock` instead of calling
`datetime.now()`. Production code gets `SystemClock`; a scenario gets `FrozenClock`,
which moves only when told to.

Every instant is timezone-aware UTC: a naive datetime is refused, because a naive value
silently means "local time of whichever machine ran CI", which is how flaky TTL tests
are born.

A clock reads instants from `EARLIEST` to `LATEST` (years 1 to 9999, what a `datetime`
holds); an instant or a step outside that range is a ValueError naming the range, never
an OverflowError from deep inside `datetime`.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from typing import Final, Protocol, runtime_checkable

__all__ = [
    "DEFAULT_FROZEN_START",
    "EARLIEST",
    "LATEST",
    "Clock",
    "FrozenClock",
    "SystemClock",
    "parse_duration",
    "parse_instant",
]

DEFAULT_FROZEN_START = datetime(2026, 1, 1, tzinfo=UTC)
"""Where a `FrozenClock` starts unless told otherwise: a fixed, readable instant."""

EARLIEST: Final = datetime.min.replace(tzinfo=UTC)
"""The first instant a clock can read (0001-01-01T00:00:00Z)."""
LATEST: Final = datetime.max.replace(tzinfo=UTC)
"""The last instant a clock can read (9999-12-31T23:59:59.999999Z): how far "When n days pass" can go."""

_RANGE = f"a clock reads from {EARLIEST.isoformat()} to {LATEST.isoformat()}"


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
    return _in_utc(moment, f"{what} {moment.isoformat()!r}")


def _in_utc(moment: datetime, what: str) -> datetime:
    """`moment` in UTC; a ValueError when its offset carries it past year 1 or 9999 (`datetime` overflows)."""
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{what} is outside the range a clock can read: {_RANGE}") from None


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

    def largest_step(self) -> timedelta:
        """How far `advance` can move from the current instant: up to `LATEST`."""
        return LATEST - self._now

    def advance(self, delta: timedelta | float | str) -> datetime:
        """Move forward by `delta` (a timedelta, seconds, or a duration like "2 hours") and return the new instant.

        Moving backwards through `advance` is refused: a negative delta is almost always a
        sign error in a step; use `set()` to jump to an earlier instant on purpose. A step
        past `LATEST` is refused, naming the largest step the clock can take from here.
        """
        asked = delta
        try:
            if isinstance(delta, str):
                delta = parse_duration(delta)
            elif not isinstance(delta, timedelta):
                if isinstance(delta, bool) or not isinstance(delta, int | float):
                    raise TypeError(
                        f"advance() takes a timedelta, seconds or a duration, got {type(delta).__name__}: {delta!r}"
                    )
                delta = timedelta(seconds=delta)
            if delta < timedelta(0):
                raise ValueError(f"advance() moves forward only, got {delta!r}; use set() to move the clock back")
            moved = self._now + delta
        except (OverflowError, _TooLong):  # timedelta or datetime overflow: past LATEST either way
            raise ValueError(
                f"cannot move the clock {asked!r} forward from {self._now.isoformat()}: the largest step it can "
                f"take from there is {self.largest_step()} ({_RANGE})"
            ) from None
        self._now = moved
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


class _TooLong(ValueError):
    """A duration longer than a `timedelta` holds (so longer than any clock can move)."""


def parse_duration(text: str) -> timedelta:
    """Read a duration as a specification writes it: "15 minutes", "2 hours", "90s".

    Strict on purpose: "5 weeks" or "5" is a typo to report, not a guess to make. A
    duration longer than a `timedelta` holds (999999999 days) is a ValueError too.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_duration() takes a string, got {type(text).__name__}: {text!r}")
    match = _DURATION_RE.fullmatch(text.strip().lower())
    unit = None
    if match is not None:
        unit = _COMPACT_UNITS[match["compact"]] if match["compact"] else _WORD_UNITS.get(match["word"])
    if match is None or unit is None:
        raise ValueError(f"cannot read {text!r} as a duration; write a number and a unit: {_DURATION_FORMS}")
    try:
        return timedelta(**{unit: float(match["amount"])})
    except OverflowError:
        raise _TooLong(f"{text!r} is too long a duration: the longest is {timedelta.max}") from None


def parse_instant(text: str) -> datetime:
    """Read an ISO-8601 instant ("2026-03-01T09:00:00Z", "2026-03-01T10:00:00+01:00") as aware UTC.

    A value without a timezone is refused: "09:00" on the CI runner and on a laptop in
    another zone are different instants.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_instant() takes a string, got {type(text).__name__}: {text!r}")
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        # Python's reason helps when it names a field ("month must be in 1..12", "year 0 is out of range").
        reason = "" if str(exc).startswith("Invalid isoformat string") else f" ({exc})"
        raise ValueError(
            f"cannot read {text!r} as an ISO-8601 instant{reason}; write e.g. '2026-03-01T09:00:00Z' "
            "or '2026-03-01T10:00:00+01:00'"
        ) from None
    if moment.tzinfo is None:
        raise ValueError(
            f"the instant {text!r} has no timezone; add 'Z' for UTC (e.g. '{text.strip()}Z') or an offset like '+01:00'"
        )
    return _in_utc(moment, f"the instant {text!r}")
