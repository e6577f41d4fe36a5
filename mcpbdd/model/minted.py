"""Secrets the run makes itself (the fake authorization server's tokens), masked like configured ones.

A project lists its own secrets under `secrets`; it cannot list a token that mcpbdd mints for a
scenario's caller, different each run. Yet a server that echoes its caller's token (in a result, a
log message, on its stderr) would put it in every report. So whatever mints a credential registers
it here at once, before anyone can see it, and every `Redactor` masks the registered values besides
its own secrets (`mcpbdd.model.redaction`).

The behave process that mints a token is not the only writer: `mcpbdd run`, its parent, prints the
console and redacts every report file at the end. So under `mcpbdd run` each behave process also
appends what it registers, a value per line, to a file the run names in `$MCPBDD_MINTED_SECRETS`
(in the run's private scratch folder, created 0600, deleted with it), and the run reads the file
(`refresh`) before it redacts anything.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["MINTED_ENV", "minted", "refresh", "register"]

MINTED_ENV = "MCPBDD_MINTED_SECRETS"
"""The file a behave process of `mcpbdd run` appends the secrets it minted to (one per line)."""

_values: list[str] = []
_known: set[str] = set()
_read: dict[Path, int] = {}
_lock = threading.Lock()


def _add(value: str) -> bool:
    with _lock:
        if not value or value in _known:
            return False
        _known.add(value)
        _values.append(value)
        return True


def _signature(secret: str) -> str:
    """A JWS's signature (its third part), or "" for anything else: the part no one but the signer could write.

    A server that cuts a token at a message limit, or a log that wraps it, may show the signature without
    the header and the claims before it, or with them escaped (`\\u002e` for each dot): masked on its own, the
    signature never shows, whatever happened to the rest (which says who the caller is, not how to be them)."""
    parts = secret.split(".")
    if len(parts) == 3 and all(parts) and all(c.isalnum() or c in "-_" for c in parts[2]):
        return parts[2]
    return ""


def register(secret: str) -> None:
    """Mask `secret` (and its signature, when it is a signed token) from now on in this process, and in the run's
    parent when there is one."""
    if "\n" in secret:
        return
    signature = _signature(secret)
    if signature:
        register(signature)
    if not _add(secret):
        return
    shared = os.environ.get(MINTED_ENV)
    if shared:
        descriptor = os.open(shared, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, (secret + "\n").encode("utf-8"))  # one write, appended whole
        finally:
            os.close(descriptor)


def refresh(shared: Path) -> None:
    """Register what the run's behave processes appended to `shared` since the last call (nothing when absent)."""
    try:
        with shared.open("rb") as stream:
            stream.seek(_read.get(shared, 0))
            data = stream.read()
    except FileNotFoundError:
        return
    complete = data[: data.rfind(b"\n") + 1]  # a line still being written is read next time
    _read[shared] = _read.get(shared, 0) + len(complete)
    for line in complete.decode("utf-8", errors="replace").splitlines():
        _add(line)


def minted() -> tuple[str, ...]:
    """Every secret registered in this process so far."""
    return tuple(_values)
