"""The Redactor: every common encoding of a secret is masked, nothing else is, and structured files stay valid.

The encodings are computed here with the standard library (and httpx, which a server uses),
not with the Redactor's own patterns, so a pattern that misses one fails a test. Each test
also shows the text really held the secret: a Redactor for another secret leaves it alone.
"""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape

import pytest
from secret_encodings import encodings

from mcpbdd.model.redaction import MASK, Redactor, redact_tree, redactor_for

SECRET = 'hunt"er2 p@ss/é'
"""A quote, a space, an at sign, a slash and an accent: every encoding below writes it differently."""


@pytest.mark.parametrize(("kind", "form"), sorted(encodings(SECRET).items()))
def test_every_encoding_of_a_secret_is_masked(kind: str, form: str) -> None:
    text = f"before «{form}» after"
    assert Redactor(["someone else's"]).redact(text) == text, "another secret's Redactor leaves it alone"
    redacted = Redactor([SECRET]).redact(text)
    assert MASK in redacted, kind
    for found in encodings(SECRET).values():
        assert found not in redacted, f"{kind}: {redacted}"


@pytest.mark.parametrize("prefix", ["", "v", "va", "vault:", "user:x"])
def test_base64_of_a_secret_inside_longer_data_is_masked_at_any_offset(prefix: str) -> None:
    """A Basic credential or a token's payload: the secret's bytes after 0, 1 or 2 (mod 3) others."""
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        blob = encode(f"{prefix}{SECRET}!tail".encode()).decode()
        assert Redactor(["someone else's"]).redact(blob) == blob
        redacted = Redactor([SECRET]).redact(blob)
        assert MASK in redacted, blob
        leftover = redacted.replace(MASK, "")
        assert len(leftover) < len(prefix) * 4 // 3 + 12, "what remains is the prefix and the tail, at most"


def test_text_that_only_resembles_a_secret_is_left_alone() -> None:
    redactor = Redactor([SECRET])
    near = ['hunt"er3 p@ss/é', "hunt'er2 p@ss/é", 'hunt"er2 p@ss/e', "hunt er2", "p@ss/é", "aHVudCJlcjIg"]
    for text in near:
        assert redactor.redact(text) == text


def test_a_secret_made_of_letters_and_digits_is_a_plain_substring() -> None:
    redactor = Redactor(["sk-live-123"])
    assert redactor.redact("key=sk-live-123; again sk-live-123") == f"key={MASK}; again {MASK}"
    assert redactor.redact("sk-live-12") == "sk-live-12"


def test_the_longest_secret_goes_first() -> None:
    assert Redactor(["token", "token-extended"]).redact("a token-extended b") == f"a {MASK} b"
    assert Redactor(["token-extended", "token"]).redact("a token b") == f"a {MASK} b"


@pytest.mark.parametrize("secret", ["redacted", "«", "d»", "[x]", "e"])
def test_the_mask_never_holds_or_makes_a_secret(secret: str) -> None:
    redactor = Redactor([secret])
    redacted = redactor.redact(f"a {secret} b {secret}{secret}")
    assert secret not in redacted, (redactor.mask, redacted)
    assert redactor.mask in redacted


def test_no_secrets_no_change() -> None:
    redactor = Redactor(["", ""])
    assert not redactor
    assert redactor.redact(SECRET) == SECRET
    assert redactor.redact_bytes(SECRET.encode()) == SECRET.encode()


def test_a_json_document_stays_valid_when_a_secret_spans_its_syntax() -> None:
    secret = 'a": "b'
    document = json.dumps({"a": "b", "c": f"x {secret} y"})
    textual = Redactor([secret]).redact(document)
    with pytest.raises(json.JSONDecodeError):
        json.loads(textual)  # what a textual replacement does: the reason for the value-by-value fallback
    assert json.loads(Redactor([secret]).redact_json(document)) == {"a": "b", "c": f"x {MASK} y"}


def test_a_json_document_is_redacted_as_text_when_that_keeps_it_valid() -> None:
    document = json.dumps({"text": json.dumps({"token": SECRET})}, indent=2)
    redacted = Redactor([SECRET]).redact_json(document)
    assert json.loads(json.loads(redacted)["text"]) == {"token": MASK}
    assert redacted.count("\n") == document.count("\n"), "the layout is kept"


def test_an_xml_document_stays_well_formed_when_a_secret_spans_its_markup() -> None:
    secret = '"><b'
    document = f'<a x="1"><b/>one {escape(secret)} two</a>'
    textual = Redactor([secret]).redact(document)
    with pytest.raises(ElementTree.ParseError):
        ElementTree.fromstring(textual)
    root = ElementTree.fromstring(Redactor([secret]).redact_xml(document))
    assert root.get("x") == "1"
    assert root.find("b").tail == f"one {MASK} two"  # type: ignore[union-attr]


def test_junit_xml_is_redacted_in_attributes_and_cdata() -> None:
    once = json.dumps(SECRET)[1:-1]
    document = (
        f"<?xml version='1.0' encoding='UTF-8'?>\n<testsuite><testcase name={json.dumps(escape(SECRET))}>"
        f'<failure message="got {escape(once, {chr(34): "&quot;"})}"><![CDATA[got {once}]]></failure>'
        f"<system-out><![CDATA[{SECRET}]]></system-out></testcase></testsuite>"
    )
    redacted = Redactor([SECRET]).redact_xml(document)
    case = ElementTree.fromstring(redacted.encode()).find("testcase")
    assert case is not None
    assert case.get("name") == MASK
    assert case.find("failure").get("message") == f"got {MASK}"  # type: ignore[union-attr]
    assert case.find("system-out").text == MASK  # type: ignore[union-attr]


def test_bytes_that_are_not_utf8_are_searched_and_otherwise_kept() -> None:
    body = b"\x89PNG\r\n\x1a\n\x00\xff" + SECRET.encode() + b"\xfe\x00"
    redacted = Redactor([SECRET]).redact_bytes(body)
    assert redacted == b"\x89PNG\r\n\x1a\n\x00\xff" + MASK.encode() + b"\xfe\x00"
    assert Redactor(["someone else's"]).redact_bytes(body) is body


def test_redact_tree_rewrites_each_of_this_runs_files_once_and_keeps_its_mode(tmp_path: Path) -> None:
    old, new, clean = tmp_path / "old.txt", tmp_path / "sub" / "new.json", tmp_path / "clean.xml"
    new.parent.mkdir()
    old.write_text(SECRET)
    new.write_text(json.dumps({"secret": SECRET}))
    clean.write_text("<a/>")
    new.chmod(0o600)
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))
    changed = redact_tree([tmp_path, new.parent, new], Redactor([SECRET]), since=time.time() - 60)
    assert changed == [new]
    assert json.loads(new.read_text()) == {"secret": MASK}
    assert new.stat().st_mode & 0o777 == 0o600
    assert old.read_text() == SECRET, "a file from before the run is left as that run wrote it"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["clean.xml", "new.json", "old.txt", "sub"]
    assert redact_tree([tmp_path], Redactor()) == []


def test_one_redactor_per_set_of_secrets() -> None:
    assert redactor_for(["b", "a", ""]) is redactor_for(["a", "b"])
    assert redactor_for(["a"]) is not redactor_for(["a", "b"])
