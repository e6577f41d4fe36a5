"""Every common encoding of a secret, for the tests that prove none of them reaches a report.

One list for the redaction unit tests and the end-to-end run over every report file, so a form added
for one is checked by both.
"""

from __future__ import annotations

import base64
import html
import json
from urllib.parse import quote, quote_plus
from xml.sax.saxutils import escape

import httpx

__all__ = ["encodings"]


def encodings(secret: str) -> dict[str, str]:
    """How JSON, URLs, XML, Python, base64 and tokens write `secret`, alone and combined (computed with the
    standard library and httpx, never by the Redactor the tests check)."""
    once = json.dumps(secret, ensure_ascii=False)[1:-1]
    data = secret.encode("utf-8")
    return {
        "plain": secret,
        "JSON": once,
        "JSON, ASCII only": json.dumps(secret)[1:-1],
        "JSON in JSON": json.dumps(once, ensure_ascii=False)[1:-1],
        "JSON in JSON in JSON": json.dumps(json.dumps(once)[1:-1])[1:-1],
        "JSON, ASCII only, in JSON": json.dumps(json.dumps(secret)[1:-1])[1:-1],
        "URL, quote": quote(secret, safe=""),
        "URL, quote keeping /": quote(secret),
        "URL, quote_plus": quote_plus(secret),
        "URL, lower-case hex": quote_plus(secret).lower(),
        "URL, httpx path": httpx.URL("https://vault.example.com/" + secret).raw_path.decode()[1:],
        "URL, httpx query": str(httpx.QueryParams({"k": secret}))[2:],
        "URL of JSON": quote(once, safe=""),
        "XML attribute": escape(secret, {'"': "&quot;"}),
        "HTML": html.escape(secret),
        "XML of JSON": escape(once, {'"': "&quot;"}),
        "XML character references": "".join(c if c.isalnum() else f"&#{ord(c)};" for c in secret),
        "Python repr": repr(secret)[1:-1],
        "Python ascii": ascii(secret)[1:-1],
        "base64": base64.b64encode(data).decode(),
        "base64, no padding": base64.b64encode(data).decode().rstrip("="),
        "base64url": base64.urlsafe_b64encode(data).decode(),
        "base64url, no padding": base64.urlsafe_b64encode(data).decode().rstrip("="),
        "Basic credential": base64.b64encode(b"vault:" + data).decode(),
        "bearer token": f"Bearer {secret}",
        "mcpbdd test token": f"mcpbdd:acme:{secret}",
    }
