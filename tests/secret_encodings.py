"""Every common encoding of a secret, for the tests that prove none of them reaches a report.

One list for the redaction unit tests and the end-to-end run over every report file, so a form added
for one is checked by both.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from urllib.parse import quote, quote_plus
from xml.sax.saxutils import escape

import httpx

__all__ = ["JWT", "encodings", "jwts_in"]


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


JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")
"""A whole JWT (header, claims, signature; an `alg: none` one has an empty signature): a token mcpbdd minted."""
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


def jwts_in(text: str) -> set[str]:
    """Every whole JWT in `text`: as it is (no encoding above changes its characters) and inside any base64 run
    decoded (an attachment's body in Cucumber JSON and Messages, a Basic credential), both alphabets."""
    found = set(JWT.findall(text))
    for run in _BASE64_RUN.findall(text):
        padded = run + "=" * (-len(run) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                found |= set(JWT.findall(decode(padded).decode("utf-8", errors="replace")))
            except (binascii.Error, ValueError):
                continue
    return found
