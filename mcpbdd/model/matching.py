"""The one JSON matcher behind every JSON assertion of mcpbdd.

Every step that compares JSON (a tool's structured result, a resource's contents, an error's
data) goes through this module, so a spec author learns one set of rules once:

* :func:`contains` is *subset* matching: the expected document names only what the scenario
  cares about, so a server may add fields without breaking its specifications.
* :func:`matches` is *exact* matching: same keys, same lengths, for when the whole shape is the
  contract.
* In both, an expected string that starts with ``#`` is a **marker** that matches a kind of value
  rather than one value (``#uuid``, ``#iso-datetime``, ``#regex <pattern>``, ...), because ids and
  timestamps differ on every run. A literal string starting with ``#`` is written ``##...``.

Both matchers return every difference (not only the first) as :class:`Mismatch` values with a
JSON path, so one failing run tells the author everything that is wrong.

Deliberate choices:

* Numbers compare by value (``1`` equals ``1.0``), because JSON has one number type and
  serialisers disagree about ``1`` versus ``1.0``. Booleans are *not* numbers: Python's
  ``True == 1`` would otherwise let ``true`` satisfy an expected ``1``.
* Arrays compare positionally and must have the same length, in :func:`contains` too (only the
  *elements* are compared as subsets). "The expected array is a subset" has several plausible
  meanings (any order? a prefix? duplicates?) and guessing wrong hides bugs; order is usually
  part of a tool's contract anyway. Use ``#ignore`` for positions a scenario does not care about.
* An unknown marker (a typo such as ``#strin``) raises :class:`ValueError` instead of being
  compared as a literal string, so a mistyped spec cannot silently fail (or pass) for the wrong
  reason. The whole expected document is checked before any comparison.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from mcpbdd._text import MISSING, clip

__all__ = [
    "MARKERS",
    "MISSING",
    "Mismatch",
    "assert_contains",
    "assert_matches",
    "contains",
    "escape",
    "matches",
    "render",
]


MARKERS: Final[tuple[str, ...]] = (
    "#string",
    "#number",
    "#boolean",
    "#array",
    "#object",
    "#null",
    "#notnull",
    "#present",
    "#notpresent",
    "#uuid",
    "#iso-datetime",
    "#ignore",
    "#regex <pattern>",
)
"""Every marker an expected document may use, as listed in error messages."""

_REGEX_PREFIX: Final = "#regex "
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# RFC 4122 section 3: 32 hex digits in 8-4-4-4-12 groups, case-insensitive on input. Version and
# variant are not checked so that the nil UUID and every version (including v6-v8) qualify.
_UUID: Final = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_VALUE_WIDTH: Final = 120
_ACTUAL_WIDTH: Final = 2000


@dataclass(frozen=True)
class Mismatch:
    """One difference between an expected and an actual JSON document.

    ``path`` locates it (``$.notes[0].title``); ``expected`` is the expected value as written in the
    spec (a marker stays a marker, :data:`MISSING` for an unexpected key); ``actual`` is what was found
    (:data:`MISSING` for an absent key); ``reason`` says what is wrong in words (``"missing"``,
    ``"unexpected key"``, ``'expected "a", got "b"'``, ...).
    """

    path: str
    expected: Any
    actual: Any
    reason: str


# --------------------------------------------------------------------------- public API


def contains(expected: Any, actual: Any) -> list[Mismatch]:
    """Subset match: every key of each expected object must be in the actual one, with a matching value.

    Extra actual keys are fine at every depth; arrays must have the same length and match element by
    element with these same subset rules; markers are honoured (``#notpresent`` requires absence).
    Returns the differences, ``[]`` when ``actual`` satisfies ``expected``. Raises :class:`ValueError`
    if ``expected`` uses an unknown marker.
    """
    return _run(expected, actual, exact=False)


def matches(expected: Any, actual: Any) -> list[Mismatch]:
    """Exact match: same keys and lengths everywhere, except where a marker says otherwise.

    Keys whose expected value is ``#ignore`` or ``#notpresent`` may be absent. Returns the
    differences, ``[]`` when they match. Raises :class:`ValueError` on an unknown marker.
    """
    return _run(expected, actual, exact=True)


def escape(value: Any) -> Any:
    """Return ``value`` with every string that starts with ``#`` escaped as ``##``, recursively.

    For expected documents built from data rather than written by hand, so that data which happens
    to start with ``#`` is compared literally instead of read as a marker. Object keys are never
    markers and are left alone.
    """
    if isinstance(value, str):
        return "#" + value if value.startswith("#") else value
    if isinstance(value, Mapping):
        return {key: escape(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [escape(item) for item in value]
    return value


def render(mismatches: Iterable[Mismatch], *, limit: int = 20) -> str:
    """Describe mismatches one per line, at most ``limit`` lines, then ``… and N more``.

    The cap keeps a failure caused by one shifted array from burying the report in hundreds of lines.
    Values appear as compact JSON cut to about 120 characters.
    """
    items = list(mismatches)
    lines = [_describe(mismatch) for mismatch in items[: max(limit, 0)]]
    if len(items) > len(lines):
        lines.append(f"… and {len(items) - len(lines)} more")
    return "\n".join(lines)


def assert_contains(expected: Any, actual: Any, what: str = "structured result") -> None:
    """Raise :class:`AssertionError` unless :func:`contains` finds no mismatch.

    The message names ``what`` was checked, lists the mismatches and shows the actual value, so a
    failing scenario can be understood from the report alone.
    """
    _assert(contains(expected, actual), actual, f"The {what} does not contain what was expected:", what)


def assert_matches(expected: Any, actual: Any, what: str = "structured result") -> None:
    """Raise :class:`AssertionError` unless :func:`matches` finds no mismatch (message as :func:`assert_contains`)."""
    _assert(matches(expected, actual), actual, f"The {what} does not match what was expected:", what)


# --------------------------------------------------------------------------- comparison


def _run(expected: Any, actual: Any, *, exact: bool) -> list[Mismatch]:
    _validate(expected, "$")
    found: list[Mismatch] = []
    _compare(expected, actual, "$", exact, found)
    return found


def _compare(expected: Any, actual: Any, path: str, exact: bool, found: list[Mismatch]) -> None:
    """Append the differences between ``expected`` and ``actual`` (possibly :data:`MISSING`) to ``found``."""
    if _is_marker(expected):
        _compare_marker(expected, actual, path, found)
        return
    if actual is MISSING:
        found.append(Mismatch(path, expected, MISSING, "missing"))
        return
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            found.append(Mismatch(path, expected, actual, f"expected an object, got {_kind(actual)}"))
            return
        for key, item in expected.items():
            _compare(item, actual.get(key, MISSING), _child(path, key), exact, found)
        if exact:
            for key, item in actual.items():
                if key not in expected:
                    found.append(Mismatch(_child(path, key), MISSING, item, "unexpected key"))
        return
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple):
            found.append(Mismatch(path, expected, actual, f"expected an array, got {_kind(actual)}"))
            return
        for index, item in enumerate(expected[: len(actual)]):
            _compare(item, actual[index], f"{path}[{index}]", exact, found)
        for index in range(len(actual), len(expected)):
            found.append(Mismatch(f"{path}[{index}]", expected[index], MISSING, "missing item"))
        for index in range(len(expected), len(actual)):
            found.append(Mismatch(f"{path}[{index}]", MISSING, actual[index], "unexpected item"))
        return
    literal = _unescape(expected)
    if not _scalar_equal(literal, actual):
        found.append(Mismatch(path, expected, actual, f"expected {_compact(literal)}, got {_compact(actual)}"))


def _compare_marker(marker: str, actual: Any, path: str, found: list[Mismatch]) -> None:
    if marker == "#ignore" or (marker == "#notpresent" and actual is MISSING):
        return
    if actual is MISSING:
        found.append(Mismatch(path, marker, MISSING, "missing"))
    elif not _satisfies(marker, actual):
        found.append(Mismatch(path, marker, actual, f"expected {marker}, got {_compact(actual)}"))


def _satisfies(marker: str, value: Any) -> bool:
    """Whether a present ``value`` satisfies ``marker`` (already validated)."""
    if marker.startswith(_REGEX_PREFIX):
        return isinstance(value, str) and re.fullmatch(marker[len(_REGEX_PREFIX) :], value) is not None
    return _CHECKS[marker](value)


def _scalar_equal(expected: Any, actual: Any) -> bool:
    """JSON equality for scalars: numbers by value (``1 == 1.0``), but a boolean only ever equals a boolean."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    return bool(expected == actual)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_iso_datetime(value: Any) -> bool:
    """An ISO-8601 date *and* time with an offset or ``Z``.

    ``fromisoformat`` alone is too lenient: it takes any character between date and time and
    returns naive datetimes for strings without an offset (even dropping ``+02:00`` after a bare
    date), so the ``T`` and a resulting time zone are checked explicitly.
    """
    if not isinstance(value, str) or not re.fullmatch(r"[^Tt]+[Tt][^Tt]+", value):
        return False
    text = value[:-1] + "+00:00" if value[-1:] in ("Z", "z") else value
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return False
    return parsed.tzinfo is not None


_CHECKS: Final[dict[str, Callable[[Any], bool]]] = {
    "#string": lambda value: isinstance(value, str),
    "#number": _is_number,
    "#boolean": lambda value: isinstance(value, bool),
    "#array": lambda value: isinstance(value, list | tuple),
    "#object": lambda value: isinstance(value, Mapping),
    "#null": lambda value: value is None,
    "#notnull": lambda value: value is not None,
    "#present": lambda value: True,
    "#notpresent": lambda value: False,
    "#uuid": lambda value: isinstance(value, str) and _UUID.fullmatch(value) is not None,
    "#iso-datetime": _is_iso_datetime,
}
"""How each marker other than ``#regex`` and ``#ignore`` judges a value that is present."""


# --------------------------------------------------------------------------- markers


def _is_marker(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("#") and not value.startswith("##")


def _unescape(value: Any) -> Any:
    """``"##foo"`` in an expected document means the literal ``"#foo"``."""
    return value[1:] if isinstance(value, str) and value.startswith("##") else value


def _validate(expected: Any, path: str) -> None:
    """Reject unknown markers and invalid ``#regex`` patterns anywhere in ``expected``, before comparing."""
    if _is_marker(expected):
        _check_marker(expected, path)
    elif isinstance(expected, Mapping):
        for key, item in expected.items():
            _validate(item, _child(path, key))
    elif isinstance(expected, list | tuple):
        for index, item in enumerate(expected):
            _validate(item, f"{path}[{index}]")


def _check_marker(marker: str, path: str) -> None:
    if marker.startswith(_REGEX_PREFIX):
        try:
            re.compile(marker[len(_REGEX_PREFIX) :])
        except re.error as error:
            raise ValueError(f"Invalid pattern in {marker!r} at {path}: {error}") from None
        return
    if marker not in MARKERS:
        raise ValueError(
            f"Unknown marker {marker!r} at {path}; the markers are {', '.join(MARKERS)}. "
            f"A literal string starting with '#' is written with '##' (e.g. '#{marker}')."
        )


# --------------------------------------------------------------------------- rendering


def _describe(mismatch: Mismatch) -> str:
    if mismatch.reason in ("missing", "missing item"):
        return f"{mismatch.path}: {mismatch.reason} (expected {_show_expected(mismatch.expected)})"
    if mismatch.reason in ("unexpected key", "unexpected item"):
        return f"{mismatch.path}: {mismatch.reason} (value {_compact(mismatch.actual)})"
    return f"{mismatch.path}: {mismatch.reason}"


def _show_expected(expected: Any) -> str:
    """Markers as written (``#uuid``), everything else as compact JSON (``##x`` as ``"#x"``)."""
    return expected if _is_marker(expected) else _compact(_unescape(expected))


def _compact(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr), _VALUE_WIDTH, flat=False)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return f"a {type(value).__name__}"


def _child(path: str, key: Any) -> str:
    """``$.name`` for identifier-like keys, ``$["a b"]`` for the rest."""
    if isinstance(key, str) and _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(str(key), ensure_ascii=False)}]"


def _assert(found: list[Mismatch], actual: Any, headline: str, what: str) -> None:
    if not found:
        return
    shown = json.dumps(actual, ensure_ascii=False, indent=2, default=repr)
    raise AssertionError(f"{headline}\n{render(found)}\n\nThe actual {what}:\n{clip(shown, _ACTUAL_WIDTH, flat=False)}")
