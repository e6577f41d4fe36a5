"""Redaction of configured secrets (`secrets` under `[tool.mcpbdd]`) from everything a report shows.

A secret can reach a report raw (an attachment's text), JSON-escaped (inside a result
file or a JSON attachment: a quote, a backslash, a newline or, with `ensure_ascii`, any
non-ASCII character is escaped) or both. The Redactor replaces every one of those forms,
longest secret first so a secret that contains another is not half-replaced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

MASK = "«redacted»"


class Redactor:
    """Replaces each configured secret by `«redacted»`; a Redactor with no secrets costs nothing."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = sorted({s for s in secrets if s}, key=len, reverse=True)
        self.secrets = tuple(unique)
        escaped = {json.dumps(s, ensure_ascii=ascii_only)[1:-1] for s in unique for ascii_only in (False, True)}
        self._json_forms = tuple(sorted(escaped, key=len, reverse=True))
        self._text_forms = tuple(sorted(escaped | set(unique), key=len, reverse=True))

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def redact(self, text: str) -> str:
        """Any text (an attachment may be prose or JSON): every secret, raw or JSON-escaped, becomes the mask."""
        for form in self._text_forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def redact_json(self, document: str) -> str:
        """A JSON document: only the escaped forms, the only ones a JSON string can hold (its syntax stays intact)."""
        for form in self._json_forms:
            if form in document:
                document = document.replace(form, MASK)
        return document

    def redact_bytes(self, body: str | bytes) -> bytes:
        """An attachment body: text is redacted; bytes that are not UTF-8 text (an image) are left as they are."""
        if isinstance(body, str):
            return self.redact(body).encode("utf-8") if self.secrets else body.encode("utf-8")
        if not self.secrets:
            return body
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
        return self.redact(text).encode("utf-8")
