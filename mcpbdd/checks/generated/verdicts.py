"""The verdicts on one answer: did the tool crash, leak, or hang?

Every generated call is judged the same way, and shrinking re-judges every smaller
candidate, so the rules for one tool are compiled once (`Rules`) and `judge` is cheap.

  * crash: an internal error (-32603), a result in exactly the form the SDK gives an
    unexpected exception ("Error executing tool NAME"; a deliberate `ToolError` reads
    "Error executing tool NAME: <message>" and is a legitimate answer), no answer at all;
  * leak, after removing echoes of the input itself: a traceback header or stack frame
    (`File "...", line N`), an absolute path of the server's code or of the Python
    installation (`server_paths`), a configured secret;
  * hang: the call's timeout ran out (the runner words it with `TIMEOUT_PREFIX`).

The client's refusal of an answer and a state change after a rejected call are found by the
runner that makes the call (`mcpbdd.checks.generated.calls`); their kinds are named here.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import sysconfig
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpbdd._sdk import registered_tools
from mcpbdd.checks.generated.adversarial import DEEP
from mcpbdd.harness.base import Harness
from mcpbdd.outcome import Channel, Outcome

__all__ = [
    "CRASH",
    "HANG",
    "KINDS",
    "LEAK",
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

TIMEOUT_PREFIX = "no answer within"
"""How a transport failure that is a timed-out call begins: the hang verdict, not a crash."""

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
_FRAME = re.compile(r'File "[^"\n]+", line \d+')


class Rules:
    """What the verdicts look for, for one tool: its crash form, the server paths and secrets (compiled once)."""

    def __init__(self, tool: str, secrets: tuple[str, ...], paths: Sequence[str]) -> None:
        self.tool = tool
        self.secrets = secrets
        self.crash_form = re.compile(
            rf"Error executing tool {re.escape(tool)}"
            r"(?:: Error (?:executing tool|reading resource|creating resource from template) \S+)*"
        )
        self.paths = (
            re.compile(r"(?<![\w.~:/-])(?:" + "|".join(re.escape(p) for p in paths) + r")(?=[/\\\"'\s:,)]|$)")
            if paths
            else None
        )

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
    text = _without_echoes(text, arguments)
    if match := _TRACEBACK.search(text):
        return f"a traceback ({_excerpt(text, match)})"
    if match := _FRAME.search(text):
        return f"a stack frame ({_excerpt(text, match)})"
    if rules.paths is not None and (match := rules.paths.search(text)):
        return f"a path of the server's installation ({_excerpt(text, match)})"
    for number, secret in enumerate(rules.secrets, start=1):
        if secret in text:
            return f"configured secret #{number} ({_mask(secret)})"
    return None


def _without_echoes(text: str, arguments: Mapping[str, Any]) -> str:
    """The text with every string of the input (keys and values, raw and JSON- or repr-escaped) cut out."""
    fragments: set[str] = set()
    for value in _strings(arguments):
        if len(value) < 3:
            continue
        fragments.add(value)
        fragments.add(json.dumps(value, ensure_ascii=False)[1:-1])
        fragments.add(json.dumps(value)[1:-1])
        fragments.add(repr(value)[1:-1])
    for fragment in sorted(fragments, key=len, reverse=True):
        if fragment and fragment in text:
            text = text.replace(fragment, " ")
    return text


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > DEEP + 10:
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


# --------------------------------------------------------------------------- server paths


def server_paths(harness: Harness) -> list[str]:
    """Absolute paths that must not appear in answers: the server's code and the Python installation.

    The folders of the modules defining the server's tools (and the import root above
    them), the standard library and site-packages. Longest first. For a server in another
    process (stdio, HTTP) only this interpreter's own paths are known: pass `paths=` to
    `check_generated_calls` to name the server's.
    """
    found: set[str] = set()
    server = getattr(harness, "server", None) or getattr(getattr(harness, "connector", None), "server", None)
    for tool in registered_tools(server):
        fn = inspect.unwrap(getattr(tool, "fn", None) or (lambda: None))
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
        filename = getattr(module, "__file__", None)
        if not filename:
            continue
        folder = Path(filename).resolve().parent
        found.add(str(folder))
        root = folder
        for _ in range(max(0, len((module.__name__ if module else "").split(".")) - 1)):
            root = root.parent
        if len(root.parts) >= 3:
            found.add(str(root))
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.add(path)
    return sorted((p for p in found if len(Path(p).parts) >= 3), key=len, reverse=True)


def leak_paths(harness: Harness, paths: Iterable[str] | None) -> list[str]:
    """The paths the leak verdict looks for: the given ones (longest first), or `server_paths(harness)`."""
    if paths is not None:
        return sorted((p for p in paths if p), key=len, reverse=True)
    return server_paths(harness)
