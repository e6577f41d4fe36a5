"""The verdicts on one answer: did the tool crash, leak, or hang?

Every generated call is judged the same way, and shrinking re-judges every smaller
candidate, so the rules for one tool are compiled once (`Rules`) and `judge` is cheap.

  * crash: an internal error (-32603), a result in exactly the form the SDK gives an
    unexpected exception ("Error executing tool NAME"; a deliberate `ToolError` reads
    "Error executing tool NAME: <message>" and is a legitimate answer), no answer at all;
  * leak, after removing echoes of the input itself: a traceback header or stack frame
    (`File "...", line N`), a configured secret, a path of the server's installation in any
    answer, and in an error any other absolute path of the server's side: its working folder,
    home or temp folder, or any path under a common root (`paths`);
  * hang: the call's timeout ran out (the runner words it with `TIMEOUT_PREFIX`).

The client's refusal of an answer and a state change after a rejected call are found by the
runner that makes the call (`mcpbdd.checks.generated.calls`); their kinds are named here. So is
`LIMIT`, which is not a verdict: the call met a transport/SDK limit and never reached the tool
(`limits`); the report counts it apart.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mcpbdd.checks.generated.paths import COMMON_ROOTS, ServerPaths, leak_paths, server_paths
from mcpbdd.model.outcome import Channel, Outcome

__all__ = [
    "CRASH",
    "HANG",
    "KINDS",
    "LEAK",
    "LIMIT",
    "MUTATION",
    "REFUSED",
    "TIMEOUT_PREFIX",
    "Rules",
    "judge",
    "leak_paths",
    "server_paths",
]

CRASH = "crash"
LEAK = "leak"
HANG = "hang"
REFUSED = "refused"
MUTATION = "mutation"
KINDS = (CRASH, LEAK, HANG, REFUSED, MUTATION)
"""Verdict kinds, in the order a report lists them."""
LIMIT = "limit"
"""Not a verdict: the call met a transport/SDK limit and never reached the tool (the runner's key for it)."""

TIMEOUT_PREFIX = "no answer within"
"""How a transport failure that is a timed-out call begins: the hang verdict, not a crash."""

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
_FRAME = re.compile(r'File "[^"\n]+", line \d+')
_NOT_A_PATH_START = r"(?<![\w.~:/-])"
"""A path starts here only if it is not the tail of a word, a URL or another path (`https://x.com/home/a`)."""
_ROOTS = re.compile(
    _NOT_A_PATH_START + r"(?:" + "|".join(re.escape(root) for root in COMMON_ROOTS) + r"|[A-Za-z]:\\{1,2})(?=[\w.@$-])"
)
_ERRORS = (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR)
MIN_ECHO = 3
"""Input strings shorter than this are not taken for echoes (they would excuse half the text)."""
TRUNCATED_ECHO = 20
"""Validation errors echo a long input truncated (pydantic: its head and tail): these ends are echoes too."""


def _paths_pattern(paths: Sequence[str]) -> re.Pattern[str] | None:
    """One regex for all the paths (longest first, so the most specific names the match), or None."""
    if not paths:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(paths, key=len, reverse=True))
    return re.compile(_NOT_A_PATH_START + r"(?:" + alternatives + r")(?=[/\\\"'\s:,)]|$)")


class Rules:
    """What the verdicts look for, for one tool: its crash form, the server paths and secrets (compiled once).

    `paths` is a `ServerPaths`, or a plain list of installation paths (then nothing else is
    looked for: no machine paths, no common roots).
    """

    def __init__(self, tool: str, secrets: tuple[str, ...], paths: ServerPaths | Sequence[str]) -> None:
        self.tool = tool
        self.secrets = secrets
        self.secret_patterns = [re.compile(re.escape(secret)) for secret in secrets]
        self.crash_form = re.compile(
            rf"Error executing tool {re.escape(tool)}"
            r"(?:: Error (?:executing tool|reading resource|creating resource from template) \S+)*"
        )
        if not isinstance(paths, ServerPaths):
            paths = ServerPaths(installation=tuple(paths), roots=False)
        self.server_paths = paths
        self.paths = _paths_pattern(paths.installation)
        self.machine = _paths_pattern([path for path, _ in paths.machine])
        self.machine_names = dict(paths.machine)
        self.roots = _ROOTS if paths.roots else None

    def redact(self, text: str) -> str:
        """The text with every configured secret replaced by its number, so the report does not repeat the leak."""
        for number, secret in enumerate(self.secrets, start=1):
            text = text.replace(secret, f"«secret #{number}»")
        return text


def judge(outcome: Outcome, arguments: Mapping[str, Any], rules: Rules) -> dict[str, str]:
    """The verdicts one answer breaks, by kind (crash, leak, hang), each with a sentence saying what is wrong."""
    found: dict[str, str] = {}
    channel = outcome.channel
    if channel is Channel.TRANSPORT_FAILURE:
        failure = outcome.failure or ""
        if failure.startswith(TIMEOUT_PREFIX):
            found[HANG] = failure
        else:
            found[CRASH] = f"no answer at all: {failure}"
    elif channel is Channel.PROTOCOL_ERROR and outcome.error is not None and outcome.error.code == -32603:
        found[CRASH] = f"the internal error -32603 {outcome.error.message!r}"
    elif channel is Channel.TOOL_ERROR and rules.crash_form.fullmatch(outcome.text.strip()):
        found[CRASH] = (
            f'the SDK\'s crash result "{outcome.text.strip()}" (an unexpected exception in the tool; '
            "its details stay in the server's log)"
        )
    leak = _leak(outcome, arguments, rules)
    if leak is not None:
        found[LEAK] = leak
    return found


def _leak(outcome: Outcome, arguments: Mapping[str, Any], rules: Rules) -> str | None:
    text = outcome.text
    structured = outcome.structured
    if structured is not None:
        text = f"{text}\n{json.dumps(structured, ensure_ascii=False, default=str)}"
    if not text:
        return None
    echoes = _Echoes(text, arguments, rules.server_paths.supplied)
    if match := echoes.search(_TRACEBACK):
        return f"a traceback ({_excerpt(text, match)})"
    if match := echoes.search(_FRAME):
        return f"a stack frame ({_excerpt(text, match)})"
    if rules.paths is not None and (match := echoes.search(rules.paths)):
        return f"a path of the server's installation ({_excerpt(text, match)})"
    for number, (secret, pattern) in enumerate(zip(rules.secrets, rules.secret_patterns, strict=True), start=1):
        if echoes.search(pattern):
            return f"configured secret #{number} ({_mask(secret)})"
    if outcome.channel not in _ERRORS:
        return None  # a successful answer may be a path on the server's machine: a file tool's result
    if rules.machine is not None and (match := echoes.search(rules.machine)):
        what = rules.machine_names.get(match.group(0), "machine")
        return f"a path of the server's {what} ({_excerpt(text, match)})"
    if rules.roots is not None and (match := echoes.search(rules.roots)):
        return f"an absolute path the input did not supply ({_excerpt(text, match)})"
    return None


class _Echoes:
    """Where an answer repeats the input: every string of it (keys and values, raw, JSON- or repr-escaped).

    A match inside an echo is the input's, not the server's; a match that reaches beyond one
    is the server's. (Cutting echoes out of the text instead would cut a short key such as
    "time" out of the middle of "/venv/timezone/..." and hide the path it is part of.)
    """

    def __init__(self, text: str, arguments: Mapping[str, Any], supplied: Sequence[str] = ()) -> None:
        self.text = text
        self.arguments = arguments
        self.supplied = supplied
        """Paths the server's command line gives as option values: the operator's input, echoed like the call's."""
        self._starts: list[int] | None = None  # found on the first match: most answers match nothing
        self._ends: list[int] = []

    def _spans(self) -> list[int]:
        if self._starts is None:
            spans: list[tuple[int, int]] = []
            for value in _echo_values(self.arguments) | set(self.supplied):
                forms = [value]
                if len(value) > 2 * TRUNCATED_ECHO:  # also as a validation error shows it: its head ... its tail
                    forms += [value[:TRUNCATED_ECHO], value[-TRUNCATED_ECHO:]]
                spans += _occurrences(self.text, _escaped(forms))
            self._starts = []
            for start, end in sorted(spans):
                if self._ends and start <= self._ends[-1]:
                    self._ends[-1] = max(self._ends[-1], end)
                else:
                    self._starts.append(start)
                    self._ends.append(end)
        return self._starts

    def covers(self, start: int, end: int) -> bool:
        """Whether one echo of the input spans the text from `start` to `end`."""
        index = bisect.bisect_right(self._spans(), start) - 1
        return index >= 0 and self._ends[index] >= end

    def search(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The first match of `pattern` that is not inside an echo of the input."""
        for match in pattern.finditer(self.text):
            if not self.covers(match.start(), match.end()):
                return match
        return None


def _echo_values(arguments: Mapping[str, Any]) -> set[str]:
    """The input's strings (keys and values) long enough to count as echoes."""
    return {value for value in _strings(arguments) if len(value) >= MIN_ECHO}


def _escaped(forms: list[str]) -> set[str]:
    escaped: set[str] = set()
    for form in forms:
        escaped.update((form, json.dumps(form, ensure_ascii=False)[1:-1], json.dumps(form)[1:-1], repr(form)[1:-1]))
    escaped.discard("")
    return escaped


def _occurrences(text: str, fragments: set[str]) -> list[tuple[int, int]]:
    """Where the fragments occur in the text (overlapping occurrences too)."""
    found: list[tuple[int, int]] = []
    for fragment in fragments:
        start = text.find(fragment)
        while start != -1:
            found.append((start, start + len(fragment)))
            start = text.find(fragment, start + 1)
    return found


ECHO_DEPTH = 300
"""How deep input strings are looked for (deeper than any transport carries: `limits.CLIENT_ARGUMENT_DEPTH`)."""


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > ECHO_DEPTH:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth + 1)


def _excerpt(text: str, match: re.Match[str], width: int = 60) -> str:
    start = max(0, match.start() - 10)
    return repr(" ".join(text[start : match.end() + width].split()))


def _mask(secret: str) -> str:
    shown = secret[:3] if len(secret) > 8 else ""
    return f"{shown}… {len(secret)} characters"
