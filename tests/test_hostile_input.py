"""Hostile input: each is a clear failure naming the feature file and line, never a Python traceback.

behave runs in a subprocess (see tests/expected_failures.py). The limits checked here are the
ones docs/reference/limits.md states: JSON nested at most 100 deep in a specification (the
same on both harnesses), a clock that reads years 1 to 9999, feature files in UTF-8, and report
attachments capped at `attachment_limit` bytes.

The tests of this concern that start processes are in tests/spawning/test_hostile_input.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from mcpbdd.kit.clock import LATEST, FrozenClock, parse_duration, parse_instant
from mcpbdd.reporting.attachments import cap
from mcpbdd.steps.arguments import MAX_JSON_DEPTH, nesting_beyond


def test_the_depth_scan_counts_brackets_outside_strings_only() -> None:
    assert nesting_beyond("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is None
    assert nesting_beyond("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)) == MAX_JSON_DEPTH
    assert nesting_beyond('{"a": "' + "[" * 500 + '"}') is None, "brackets inside a string do not nest"
    assert nesting_beyond('{"a\\"[[": [[1]]}', 2) == 11, "an escaped quote does not end the string"


def test_the_clock_names_its_range_instead_of_overflowing() -> None:
    clock = FrozenClock()
    assert clock.largest_step() == LATEST - datetime(2026, 1, 1, tzinfo=UTC)
    assert clock.advance(clock.largest_step()) == LATEST
    with pytest.raises(ValueError, match=r"the largest step it can take from there is 0:00:00 \(a clock reads"):
        clock.advance(1e-3)
    with pytest.raises(ValueError, match="largest step"):
        FrozenClock().advance(10.0**30)
    assert FrozenClock().advance("2 hours") == datetime(2026, 1, 1, 2, tzinfo=UTC)
    with pytest.raises(ValueError, match="too long a duration"):
        parse_duration("9" * 400 + " seconds")
    with pytest.raises(ValueError, match="outside the range a clock can read"):
        parse_instant("0001-01-01T00:00:00+01:00")
    with pytest.raises(ValueError, match="outside the range a clock can read"):
        FrozenClock(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))))


def test_cap_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    body = "é" * 3000  # 6,000 bytes of two-byte characters
    capped, cut = cap(body, 1025)
    head, note, tail = capped.split("\n\n")
    assert head == "é" * 256 and tail == "é" * 256, "a character split by the cut is dropped, not mangled"
    assert cut == 6000 - 2 * 512
    assert f"[… {cut:,} bytes cut here by mcpbdd: this attachment held 6,000 bytes" in note
    assert cap("short", 1024) == ("short", 0)
