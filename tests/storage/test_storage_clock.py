"""The clock storage TTLs read: frozen and system clocks, and the duration/instant phrases of steps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from mcpbdd.kit.clock import DEFAULT_FROZEN_START, Clock, FrozenClock, SystemClock, parse_duration, parse_instant


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30 seconds", timedelta(seconds=30)),
        ("1 second", timedelta(seconds=1)),
        ("15 minutes", timedelta(minutes=15)),
        ("1 minute", timedelta(minutes=1)),
        ("2 hours", timedelta(hours=2)),
        ("1 hour", timedelta(hours=1)),
        ("1 day", timedelta(days=1)),
        ("3 days", timedelta(days=3)),
        ("90s", timedelta(seconds=90)),
        ("15m", timedelta(minutes=15)),
        ("2h", timedelta(hours=2)),
        ("1d", timedelta(days=1)),
        ("  2 Hours ", timedelta(hours=2)),
        ("1.5 hours", timedelta(minutes=90)),
        ("0 seconds", timedelta(0)),
    ],
)
def test_parse_duration_reads_every_documented_form(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text", ["5 weeks", "5", "seconds", "", "-5s", "5 s", "1 h", "2 hours ago", "1w", "ten minutes"]
)
def test_parse_duration_refuses_anything_else(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_duration(text)
    message = str(caught.value)
    assert repr(text) in message
    assert '"15 minutes"' in message and '"90s"' in message


def test_parse_duration_refuses_non_strings() -> None:
    with pytest.raises(TypeError, match="string"):
        parse_duration(30)  # type: ignore[arg-type]


def test_frozen_clock_starts_at_a_fixed_instant_and_stays_there() -> None:
    clock = FrozenClock()
    assert clock.now() == datetime(2026, 1, 1, tzinfo=UTC) == DEFAULT_FROZEN_START
    assert clock.now() == clock.now()
    assert clock.now().tzinfo is not None
    assert isinstance(clock, Clock)


def test_frozen_clock_advances_and_jumps() -> None:
    clock = FrozenClock(datetime(2026, 3, 1, 9, tzinfo=UTC))
    assert clock.advance(timedelta(minutes=15)) == datetime(2026, 3, 1, 9, 15, tzinfo=UTC)
    clock.advance(parse_duration("2h"))
    assert clock.now() == datetime(2026, 3, 1, 11, 15, tzinfo=UTC)
    clock.advance(30)
    assert clock.now() == datetime(2026, 3, 1, 11, 15, 30, tzinfo=UTC)
    assert clock.timestamp() == clock.now().timestamp()
    clock.set(datetime(2025, 12, 31, 23, tzinfo=timezone(timedelta(hours=-2))))
    assert clock.now() == datetime(2026, 1, 1, 1, tzinfo=UTC)
    assert clock.now().utcoffset() == timedelta(0)
    assert clock.timestamp() == datetime(2026, 1, 1, 1, tzinfo=UTC).timestamp()


def test_frozen_clock_refuses_naive_times_and_backward_advances() -> None:
    with pytest.raises(ValueError, match="no timezone"):
        FrozenClock(datetime(2026, 1, 1))
    clock = FrozenClock()
    with pytest.raises(ValueError, match="no timezone"):
        clock.set(datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="forward"):
        clock.advance(timedelta(seconds=-1))
    with pytest.raises(TypeError):
        clock.advance(["5 minutes"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot read '5 fortnights' as a duration"):
        clock.advance("5 fortnights")
    assert clock.now() == DEFAULT_FROZEN_START


def test_system_clock_is_aware_utc_and_moves() -> None:
    clock = SystemClock()
    before = datetime.now(UTC)
    now = clock.now()
    assert now.utcoffset() == timedelta(0)
    assert before <= now <= datetime.now(UTC)
    assert abs(clock.timestamp() - now.timestamp()) < 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-01T09:00:00Z", datetime(2026, 3, 1, 9, tzinfo=UTC)),
        ("2026-03-01T10:00:00+01:00", datetime(2026, 3, 1, 9, tzinfo=UTC)),
        ("2026-03-01T09:00:00.250+00:00", datetime(2026, 3, 1, 9, 0, 0, 250000, tzinfo=UTC)),
    ],
)
def test_parse_instant_reads_iso_8601(text: str, expected: datetime) -> None:
    moment = parse_instant(text)
    assert moment == expected
    assert moment.utcoffset() == timedelta(0)


def test_parse_instant_refuses_naive_and_garbage() -> None:
    with pytest.raises(ValueError, match=r"no timezone.*2026-03-01T09:00:00Z"):
        parse_instant("2026-03-01T09:00:00")
    with pytest.raises(ValueError, match="ISO-8601"):
        parse_instant("next tuesday")
