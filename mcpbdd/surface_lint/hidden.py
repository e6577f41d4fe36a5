"""Tool poisoning: instructions to the model, invisible characters, steering, exfiltrating URLs, deceptive markup.

Every string a model reads in a listing is searched: the name, title and description, and every string
inside the input and output schemas (a parameter's description poisons as well as the tool's). Each
finding quotes the passage, made visible (`visible.reveal`): what tag characters spell, which
zero-width or bidi characters sit where. The patterns are narrow imperatives addressed to the model, so a
description that merely mentions a sibling tool ("works only while `set_archiving` turned it on") passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from mcpbdd.surface_lint.findings import Finding, finding
from mcpbdd.surface_lint.visible import has_invisible, is_invisible, is_tag, reveal, tag_text

__all__ = ["hidden_findings", "texts_of"]

_I = re.IGNORECASE | re.DOTALL

_INSTRUCTIONS = [
    re.compile(
        r"<\s*(important|system|instructions?|secret|hidden|admin|assistant|sys|context|prompt)\b[^>]{0,200}>.{0,400}",
        _I,
    ),
    re.compile(
        r"\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|other|"
        r"system)\s+(instructions|rules|prompts?|messages?)",
        _I,
    ),
    re.compile(
        r"\b(do\s+not|don't|never|avoid)\s+(tell|inform|mention|reveal|show|notify|alert|let)\b[^.\n]{0,60}"
        r"\b(user|human|them)\b",
        _I,
    ),
    re.compile(r"\b(without|before)\s+(telling|informing|notifying|asking|alerting)\s+the\s+(user|human)", _I),
    re.compile(  # a file no tool of this server needs: the user's keys and configuration
        r"\b(read|open|cat|load|include|attach|send|pass|upload|copy)\b[^.\n]{0,80}(~/|/etc/passwd|\.ssh\b|"
        r"id_rsa|\.env\b|\.aws\b|mcp\.json|\.cursor/|private[ _]key)",
        _I,
    ),
    re.compile(  # the user's secrets handed over ("send a password reset link" is no such thing)
        r"\b(include|attach|send|pass|upload|copy|forward|append|leak)\b[^.\n]{0,40}\b(the\s+user'?s|your|their|"
        r"all|any)\s+(api[_ ]?keys?|passwords?|credentials|secrets?|access\s+tokens?|cookies)\b",
        _I,
    ),
    re.compile(
        r"\b((reveal|print|show|repeat|output|ignore)\s+(your|the)\s+system\s+prompt|as an ai\b|"
        r"you are (now )?(a|an|the) (assistant|ai|model)\b)",
        _I,
    ),
]
_STEERING = [
    re.compile(
        r"\b(instead of|rather than|in place of)\s+((using|calling|invoking)\s+(the\s+|any\s+)?\S+|"
        r"(the\s+|any\s+)?[\w`'\".-]+\s+(tool|server|mcp)s?\b|`\w+_\w+`)",
        _I,
    ),
    re.compile(
        r"\b(always|exclusively)\s+(use|call|invoke|prefer)\s+(this|these|our|my)\s+(tool|server)s?\b[^.\n]{0,40}"
        r"\b(instead|over|rather|first|before|every|any|all)\b",
        _I,
    ),
    re.compile(
        r"\b(never|do\s+not|don't)\s+(use|call|invoke|trust)\s+(any\s+)?(other|another|the\s+\S+\s+(tool|server)|"
        r"`\w+`)",
        _I,
    ),
    re.compile(
        r"\b(before|after|when(ever)?)\s+(using|calling|invoking|running)\s+(any|other|another|every|all)\s+"
        r"[^.\n]{0,40}\b(tools?|servers?)\b",
        _I,
    ),
    re.compile(
        r"\b(other|all\s+other|another)\s+(tools?|servers?)\b[^.\n]{0,40}\b(must\s+not|should\s+not|are\s+"
        r"(deprecated|unsafe|broken|compromised))\b",
        _I,
    ),
    re.compile(
        r"\b(overrides?|supersedes?|takes\s+precedence\s+over)\s+(the\s+|any\s+|all\s+)?(other\s+)?"
        r"([\w`'\"-]+\s+)?(tools?|servers?|instructions)\b",
        _I,
    ),
]
_URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s)>\]\"'`]+", re.IGNORECASE)
_SEND = re.compile(r"\b(send|post|upload|forward|transmit|append|exfiltrate|leak)\b", re.IGNORECASE)
_DATA = re.compile(
    r"\b(conversation|history|context|chat|messages?|prompts?|secrets?|keys?|tokens?|passwords?|credentials|"
    r"files?|data|contents?|everything)\b",
    re.IGNORECASE,
)
_DATA_QUERY = re.compile(
    r"(^|&)(data|content|text|conversation|history|secret|token|key|api_?key|password|prompt|context|chat|message|msg|"
    r"body|payload|info|file|env|creds?|credentials)=",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"[{}<>$]|%7[bBdD]|%3[cCeE]")
_MARKUP = [
    (re.compile(r"<!--.{0,200}", re.DOTALL), "an HTML comment, which renders as nothing"),
    (
        re.compile(
            r"<[a-z][^>]{0,200}\bstyle\s*=\s*[\"'][^\"']{0,200}(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:"
            r"\s*0|opacity\s*:\s*0)[^>]{0,200}>",
            re.IGNORECASE,
        ),
        "an element styled to be invisible",
    ),
    (re.compile(r"<[a-z][^>]{0,200}\bhidden\b[^>]{0,200}>", re.IGNORECASE), "an element marked hidden"),
    (re.compile(r"!\[[^\]]{0,300}\]\([^)]{0,500}\)"), "an image, which a renderer fetches and shows instead of text"),
    (re.compile(r" {24}|\n{6}"), "a run of blank space pushing text out of view"),
]
_LINK = re.compile(r"\[(?P<text>[^\]]{1,300})\]\((?P<href>[^)\s]{1,500})[^)]{0,300}\)")


def texts_of(listing: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(JSON path, text) for every string a model reads in a listing: name, title, description, schema strings."""
    for key in ("name", "title", "description"):
        if isinstance(listing.get(key), str):
            yield f"$.{key}", listing[key]
    for key in ("inputSchema", "outputSchema"):
        yield from _strings(listing.get(key), f"$.{key}", 0)


def _strings(value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
    if depth > 16:
        return
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and any(is_invisible(c) for c in key):
                yield f"{path}.<key>", key
            yield from _strings(item, f"{path}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]", depth + 1)


def hidden_findings(listings: Sequence[Mapping[str, Any]]) -> Iterator[Finding]:
    """Every poisoning finding of the surface, tool by tool, text by text."""
    for listing in listings:
        tool = str(listing.get("name"))
        for path, text in texts_of(listing):
            yield from _invisible(tool, path, text)
            shown = _visible_only(text)
            yield from _matches("hidden-instructions", tool, path, shown, _INSTRUCTIONS, "instructions to the model")
            yield from _matches(
                "cross-tool-steering", tool, path, shown, _STEERING, "steers the model's choice of tools"
            )
            yield from _urls(tool, path, shown)
            yield from _markup(tool, path, text)


def _visible_only(text: str) -> str:
    """The text as the model reads it with invisible characters dropped and tag characters spelled out (a
    zero-width space inside `ign\u200bore` must not hide the word from the patterns)."""
    if not has_invisible(text):
        return text
    out: list[str] = []
    for char in text:
        if is_tag(char):
            out.append(tag_text(char))
        elif not is_invisible(char):
            out.append(char)
    return "".join(out)


def _invisible(tool: str, path: str, text: str) -> Iterator[Finding]:
    if not has_invisible(text):
        return
    hidden = [c for c in text if is_invisible(c)]
    tags = "".join(c for c in text if is_tag(c))
    kinds = sorted({f"U+{ord(c):04X}" for c in hidden if not is_tag(c)})
    parts = []
    if tags:
        parts.append(f'{len(tags)} tag character(s) spelling "{reveal(tag_text(tags), 300)}"')
    if kinds:
        parts.append(f"{len(hidden) - len(tags)} invisible character(s) ({', '.join(kinds[:12])})")
    yield finding("invisible-characters", tool, path, "; ".join(parts), reveal(text))


def _matches(
    rule: str, tool: str, path: str, text: str, patterns: list[re.Pattern[str]], what: str
) -> Iterator[Finding]:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            yield finding(rule, tool, path, what, reveal(match.group(0), 300))
            return  # one finding per text and rule: the quote shows the first passage


def _urls(tool: str, path: str, text: str) -> Iterator[Finding]:
    for match in _URL.finditer(text):
        url = match.group(0)
        parts = urlsplit(url)
        sentence = _sentence(text, match.start(), match.end())
        why = None
        if _PLACEHOLDER.search(url):
            why = "the URL has a placeholder for data to be filled in"
        elif _DATA_QUERY.search(parts.query):
            why = "the URL's query asks for data a model may fill in"
        elif _SEND.search(sentence) and _DATA.search(sentence):
            why = "the text tells the model to send data to the URL"
        if why:
            yield finding("exfiltrating-url", tool, path, why, reveal(sentence, 300))
            return  # one finding per text: the quote shows the first such URL


def _sentence(text: str, start: int, end: int) -> str:
    low, high = max(start - 200, 0), min(end + 200, len(text))  # a sentence, or 200 characters either side
    left = max(text.rfind(".", low, start), text.rfind("\n", low, start), low - 1) + 1
    stops = [i for i in (text.find(". ", end, high), text.find("\n", end, high)) if i != -1]
    return text[left : min(stops) if stops else high].strip()


def _markup(tool: str, path: str, text: str) -> Iterator[Finding]:
    for pattern, what in _MARKUP:
        match = pattern.search(text)
        if match:
            yield finding("deceptive-markup", tool, path, what, reveal(match.group(0), 300))
    for match in _LINK.finditer(text):
        shown, href = match.group("text").strip(), match.group("href")
        shown_host = urlsplit(shown if "://" in shown else f"//{shown}").hostname if "." in shown else None
        href_host = urlsplit(href).hostname
        if shown_host and href_host and shown_host.lower() != href_host.lower():
            yield finding(
                "deceptive-markup",
                tool,
                path,
                f"a link reading {reveal(shown_host, 80)} leads to {reveal(href_host, 80)}",
                reveal(match.group(0), 300),
            )
