"""Redaction of configured secrets (`secrets` under `[tool.mcpbdd]`) from every file a run writes.

The secrets the run mints itself (the fake authorization server's tokens) are masked the same way,
by every Redactor, without being configured: `mcpbdd.model.minted` keeps them.

One `Redactor`, built once from the configured secrets, is the only place that knows what
a secret looks like once something has encoded it; every writer goes through it:

- mcpbdd's Allure formatter redacts each result and attachment as it writes it (no
  unredacted Allure file ever touches the disk);
- `mcpbdd run` hands every file its behave processes wrote (JUnit XML, any `--outfile`,
  Allure results again) to `redact_tree` once they have all ended, and redacts their
  console output line by line;
- the behave hooks redact behave's own JUnit XML in `after_all`, so a plain
  `behave --junit` with mcpbdd's hooks is covered too.

A new output format needs nothing of its own when its files are under `reports/` (or the
results, JUnit or `--outfile` paths): `mcpbdd run` reads every file written there during the
run. A format that writes elsewhere, or outside `mcpbdd run`, calls `redact_file`/`redact_tree`
with `redactor_for(settings.secrets)` once its file is complete.

What a secret is matched in (each of these, and any mix of them: JSON in XML, URL-encoded
JSON, ...):

- as it is, and with any of its characters escaped the way JSON, JavaScript and Python
  escape them (`\\"`, `\\\\`, `\\n`, `\\u00e9`, `\\xe9`), at any depth: a JSON document
  inside a JSON string (`hunt\\\\\\"er2`) is matched like a JSON string;
- URL-encoded: any of its characters percent-encoded (upper- or lower-case hex, UTF-8
  bytes) or left as they are, with `+` or `%20` for a space: `quote`, `quote_plus`,
  httpx's paths and queries, JavaScript's `encodeURIComponent` all give one of those;
- XML and HTML escaped (`&quot;`, `&amp;`, `&#34;`, `&#x22;`): JUnit XML, HTML;
- base64 of its UTF-8 bytes, standard and URL-safe alphabets, with and without padding,
  also inside a longer base64 text at any offset (a Basic credential `user:secret`, a
  token's payload), as long as the part that only the secret determines has at least
  `MIN_BASE64` characters (a secret of about 5 bytes or more).

A secret's beginning cut off by a message limit (`mcpbdd._text.clip`'s ellipsis, at least
`MIN_CUT` characters of it) is masked too: a failure message quoting an echoed token never shows
part of its signature. A secret cut in two (two log messages, a wrapped line) is not matched.

A secret inside a bearer token (`Bearer <secret>`, `mcpbdd:<tenant>:<secret>`) is a plain
substring and matched as such. Letters, digits, `-`, `.` and `_` are never escaped by any of
those encodings, so a secret made only of them is found by a plain substring search (the
common case: API keys, passwords of letters and digits), which costs next to nothing.

Every match becomes the mask `«redacted»` (another one if a secret shares a character with
its ends, so a mask can never make a secret appear); secrets are replaced longest first, so
a secret that contains another is not half-replaced. In a JSON or XML file a textual
replacement that would break the syntax (a secret that spans markup) is done value by value
instead, on the parsed document, so a redacted file still parses.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import string
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mcpbdd.model.minted import minted

__all__ = ["MASK", "MIN_BASE64", "MIN_CUT", "Redactor", "redact_tree", "redactor_for"]

MASK = "«redacted»"
_MASKS = (MASK, "[redacted]", "(redacted)", *(c * 3 for c in "*#~=^|!"))
"""The mask, then alternatives for a secret that shares a character with the mask (all safe in JSON and XML)."""

_CLOCK_SLACK = 2.0
"""Seconds a file's modification time may lag the clock (coarse file-system timestamps): `since` allows for it."""

MIN_BASE64 = 6
"""The fewest base64 characters searched for: shorter runs would match unrelated text."""

MIN_CUT = 16
"""The fewest characters of a secret's beginning, cut off by an ellipsis, that are masked (shorter ones say little)."""
_CUT = re.compile(r"([A-Za-z0-9._~+/=-]{" + str(MIN_CUT) + r",})(…|\\u2026)")
"""A run of token characters cut by `mcpbdd._text.clip`'s ellipsis (or its JSON escape)."""

_PLAIN = frozenset(string.ascii_letters + string.digits + "-._")
"""Characters no encoding above changes (RFC 3986 unreserved, without `~` which old encoders escape)."""
_SHORT_ESCAPES = {'"': '"', "'": "'", "/": "/", "\n": "n", "\r": "r", "\t": "t", "\b": "b", "\f": "f"}
"""JSON, JavaScript and Python one-letter escapes: `\\"`, `\\n`, ... (a backslash is handled on its own)."""
_ENTITIES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos"}
_BACKSLASH = r"(?:\\|%5[cC]|&#0*92;|&#[xX]0*5[cC];)"
"""A backslash, raw, URL-encoded or as an XML reference; repeated, an escape at any depth (each JSON level doubles
the backslashes before it)."""


def _hex(text: str) -> str:
    """`e9` -> `[eE]9`: hex digits in either case, without making the rest of the pattern case-blind."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in text)


def _bare(char: str) -> list[str]:
    """The character as it is, URL-encoded (its UTF-8 bytes) and as an XML or HTML reference."""
    code = ord(char)
    forms = [re.escape(char), "".join("%" + _hex(f"{byte:02X}") for byte in char.encode("utf-8"))]
    if char == " ":
        forms.append(r"\+")  # quote_plus, form bodies
    if char in _ENTITIES:
        forms.append(f"&{_ENTITIES[char]};")
    forms += [f"&#0*{code};", "&#[xX]0*" + _hex(f"{code:x}") + ";"]
    return forms


def _char_pattern(char: str) -> str:
    """Every way the encodings above may write one character, as a regular expression."""
    if char in _PLAIN:
        return re.escape(char)
    if char == "\\":
        return _BACKSLASH + "+"  # itself, escaped once, twice, ...
    bare = "(?:" + "|".join(_bare(char)) + ")"
    short = _SHORT_ESCAPES.get(char)
    if short == char:
        forms = [_BACKSLASH + "*" + bare]  # \", \\\", \&quot;, ...: the character after any backslashes
    elif short is not None:
        forms = [bare, _BACKSLASH + "+" + short]  # a newline, or \n after backslashes
    else:
        forms = [bare]
    utf16 = char.encode("utf-16-be")
    words = [utf16[i : i + 2].hex() for i in range(0, len(utf16), 2)]
    forms.append("".join(_BACKSLASH + "+u" + _hex(word) for word in words))  # \u00e9, \ud83d\ude00
    code = ord(char)
    if code < 0x100:
        forms.append(_BACKSLASH + "+x" + _hex(f"{code:02x}"))  # Python's \xe9
    elif code > 0xFFFF:
        forms.append(_BACKSLASH + "+U" + _hex(f"{code:08x}"))  # Python's \U0001f600
    return "(?:" + "|".join(forms) + ")"


def _base64_forms(secret: str) -> set[str]:
    """The secret's bytes in base64: whole (padded or not), and the part of it fixed at each offset in longer data.

    At offset k (k bytes before it in the encoded data) the characters that depend on
    the secret's bits alone run from ceil(8k/6) to floor(8(k+n)/6): the same whatever
    comes before or after, so that run is found inside any base64 text.
    """
    data = secret.encode("utf-8")
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(data).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
        for offset in (0, 1, 2):
            encoded = encode(b"\0" * offset + data).decode("ascii")
            start, end = -(-8 * offset // 6), 8 * (offset + len(data)) // 6
            forms.add(encoded[start:end])
    return {form for form in forms if len(form) >= MIN_BASE64}


def _longest_literal(secret: str) -> str:
    """The longest run of characters no encoding changes: a fast substring test before any regular expression."""
    runs = re.findall(r"[A-Za-z0-9._-]+", secret)
    return max(runs, key=len) if runs else ""


def _grouped(forms: set[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Forms grouped under the shortest one they contain: one substring test per group (the padded, unpadded
    and offset forms of one secret mostly contain each other), then the group's forms longest first."""
    groups: list[tuple[str, list[str]]] = []
    for form in sorted(forms, key=lambda f: (len(f), f)):
        group = next((members for key, members in groups if key in form), None)
        if group is None:
            groups.append((form, [form]))
        else:
            group.append(form)
    return tuple((key, tuple(sorted(members, key=len, reverse=True))) for key, members in groups)


class _Secret:
    """One secret's search: a plain substring, or a pattern behind a cheap substring test, then its base64 forms."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.literal = secret if all(c in _PLAIN for c in secret) else None
        self.required = _longest_literal(secret)
        self.pattern = None if self.literal is not None else re.compile("".join(_char_pattern(c) for c in secret))
        self.base64 = _grouped(_base64_forms(secret) - {secret})

    def found_in(self, text: str) -> bool:
        if self.literal is not None:
            found = self.literal in text
        else:
            assert self.pattern is not None
            found = (not self.required or self.required in text) and self.pattern.search(text) is not None
        return found or any(key in text for key, _forms in self.base64)

    def replace(self, text: str, mask: str) -> str:
        if self.literal is not None:
            if self.literal in text:
                text = text.replace(self.literal, mask)
        elif not self.required or self.required in text:
            assert self.pattern is not None
            text = self.pattern.sub(mask, text)
        for key, forms in self.base64:
            if key in text:
                for form in forms:
                    text = text.replace(form, mask)
        return text


def _parse_xml(document: str) -> ElementTree.Element:
    return ElementTree.fromstring(document.encode("utf-8"))


def _choose_mask(secrets: list[_Secret]) -> str:
    """The first mask no secret can appear in, or appear across (its ends are characters no secret has)."""
    for mask in _MASKS:
        if not any(mask[0] in s.secret or mask[-1] in s.secret or s.found_in(mask) for s in secrets):
            return mask
    return MASK  # every secret is one of * # ~ = ^ | ! and more: nothing sensible is left


_minted_search = functools.lru_cache(maxsize=None)(_Secret)
"""One search per minted secret, shared by every Redactor of the process."""


def _run_pattern(searches: list[_Secret]) -> re.Pattern[str] | None:
    """A run of plain and base64 characters as long as the shortest form of any of `searches` (a token minted
    for a caller, hundreds of characters): text without one holds none of them, whatever its size, and a single
    scan says so. None when a secret has other characters (no such shortcut)."""
    if any(search.literal is None for search in searches):
        return None
    shortest = min(min([len(search.secret), *(len(key) for key, _forms in search.base64)]) for search in searches)
    return re.compile(f"[A-Za-z0-9+/=._-]{{{shortest},}}")


class Redactor:
    """Replaces each configured secret, and each one the run minted (`mcpbdd.model.minted`), in any of the
    encodings above, by a mask; with no secrets it costs nothing."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = sorted({s for s in secrets if s}, key=len, reverse=True)
        self.secrets = tuple(unique)
        self._own = [_Secret(s) for s in unique]
        self._minted: list[_Secret] = []
        self._minted_run: re.Pattern[str] | None = None
        self._minted_seen = 0
        self.mask = _choose_mask(self._own)

    def __bool__(self) -> bool:
        return bool(self.secrets) or bool(minted())

    def _current(self, text: str) -> list[_Secret]:
        """The searches `text` needs: the configured secrets', then the minted ones' (rebuilt when one is minted),
        unless `text` has no run of characters long enough to hold any minted one in any form."""
        values = minted()
        if len(values) != self._minted_seen:
            own = set(self.secrets)
            self._minted = sorted(
                (_minted_search(value) for value in values if value not in own),
                key=lambda search: len(search.secret),
                reverse=True,
            )
            self._minted_run = _run_pattern(self._minted)
            self._minted_seen = len(values)
        if not self._minted or (self._minted_run is not None and self._minted_run.search(text) is None):
            return self._own
        return [*self._own, *self._minted]

    def found_in(self, text: str) -> bool:
        """Whether any secret, in any encoding, is in `text`."""
        return any(search.found_in(text) for search in self._current(text))

    def redact(self, text: str) -> str:
        """Any text (prose, JSON, XML, a log): every secret in every encoding becomes the mask."""
        for search in self._current(text):
            text = search.replace(text, self.mask)
        return self._redact_cut(text)

    def _redact_cut(self, text: str) -> str:
        """A secret's beginning cut off by a message limit (`clip`'s ellipsis, at least `MIN_CUT` characters of
        it): masked, so a signature cut in a failure message shows none of itself."""
        if "…" not in text and "\\u2026" not in text:
            return text
        secrets = [secret for secret in (*self.secrets, *minted()) if len(secret) >= MIN_CUT]

        def masked(match: re.Match[str]) -> str:
            run = match[1]
            for secret in secrets:
                start = run.find(secret[:MIN_CUT])
                while start != -1:
                    if secret.startswith(run[start:]):
                        return run[:start] + self.mask + match[2]
                    start = run.find(secret[:MIN_CUT], start + 1)
            return match[0]

        return _CUT.sub(masked, text) if secrets else text

    def redact_json(self, document: str) -> str:
        """A JSON document, still valid JSON afterwards (value by value if a textual replacement broke it)."""
        return self._redact_keeping_syntax(document, json.loads, ValueError, self._redact_json_values)

    def _redact_json_values(self, value: Any, document: str) -> str:
        return json.dumps(self._redact_value(value), ensure_ascii=False, indent=2 if "\n" in document else None)

    def _redact_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self._redact_value(item) for item in value]
        if isinstance(value, dict):
            return {self.redact(key): self._redact_value(item) for key, item in value.items()}
        return value

    def redact_xml(self, document: str) -> str:
        """An XML document (JUnit), still well-formed afterwards (attribute by attribute, text by text if needed)."""
        return self._redact_keeping_syntax(document, _parse_xml, ElementTree.ParseError, self._redact_xml_parts)

    def _redact_xml_parts(self, root: ElementTree.Element, document: str) -> str:
        for element in root.iter():
            element.attrib = {key: self.redact(value) for key, value in element.attrib.items()}
            element.text = self.redact(element.text) if element.text else element.text
            element.tail = self.redact(element.tail) if element.tail else element.tail
        return ElementTree.tostring(root, encoding="unicode", xml_declaration=True)

    def _redact_keeping_syntax(
        self,
        document: str,
        parse: Callable[[str], Any],
        broken: type[Exception],
        piece_by_piece: Callable[[Any, str], str],
    ) -> str:
        """`document` redacted as text if it still parses; if that broke it, `piece_by_piece(parsed, document)`.

        A document that did not parse to begin with is redacted as text.
        """
        redacted = self.redact(document)
        if redacted == document:
            return document
        try:
            parse(redacted)
            return redacted
        except broken:
            pass
        try:
            parsed = parse(document)
        except broken:
            return redacted  # it was not JSON or XML to begin with
        return piece_by_piece(parsed, document)

    def redact_bytes(self, body: str | bytes) -> bytes:
        """An attachment body. Bytes that are not UTF-8 (an image) are searched too: a secret in them is replaced."""
        if isinstance(body, str):
            return (self.redact(body) if self else body).encode("utf-8")
        if not self:
            return body
        text = body.decode("utf-8", errors="surrogateescape")  # every byte survives the round trip
        redacted = self.redact(text)
        return body if redacted == text else redacted.encode("utf-8", errors="surrogateescape")

    def redact_file(self, path: Path) -> bool:
        """Redact one file in place (written whole under a temporary name, then renamed); True if it changed."""
        if not self:
            return False
        data = path.read_bytes()
        text = data.decode("utf-8", errors="surrogateescape")
        suffix = path.suffix.lower()
        if suffix == ".json":
            redacted = self.redact_json(text)
        elif suffix == ".xml":
            redacted = self.redact_xml(text)
        else:
            redacted = self.redact(text)
        if redacted == text:
            return False
        temporary = path.with_name(f".{path.name}.redacting")
        temporary.write_bytes(redacted.encode("utf-8", errors="surrogateescape"))
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
        return True


def redactor_for(secrets: Iterable[str]) -> Redactor:
    """The Redactor of these secrets, built once per process (each attachment asks for one)."""
    return _cached(tuple(sorted({s for s in secrets if s})))


@functools.lru_cache(maxsize=16)
def _cached(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    """Every file at or under the paths, once (a folder may be inside another one given)."""
    seen: set[Path] = set()
    for path in paths:
        found = [path] if path.is_file() else sorted(path.rglob("*")) if path.is_dir() else []
        for file in found:
            key = file.resolve()
            if key not in seen and file.is_file():
                seen.add(key)
                yield file


def redact_tree(paths: Iterable[Path], redactor: Redactor, *, since: float | None = None) -> list[Path]:
    """Redact every file at or under `paths` (files, or folders walked recursively); returns the files changed.

    `since` (a `time.time()`) leaves out files last modified before it: what an earlier
    run left in a folder kept with `--keep-results` was redacted by that run.
    """
    if not redactor:
        return []
    changed = []
    for path in _files(paths):
        if since is not None and path.stat().st_mtime < since - _CLOCK_SLACK:
            continue
        if redactor.redact_file(path):
            changed.append(path)
    return changed
