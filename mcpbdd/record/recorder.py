"""Writing a cassette while the session runs: the header, each exchange as it completes, the end.

Each line is flushed as it is written, so a session that is killed still leaves a readable
cassette of what finished. Configured secrets are redacted line by line (the reporting
`Redactor`, every encoding of each secret) before anything reaches the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from mcpbdd.model.redaction import Redactor
from mcpbdd.record.assembler import Assembler, now_iso
from mcpbdd.record.cassette import End, Exchange, Header, dumps


class Recorder:
    """Feed it the wire lines of a session; it writes the cassette at `path`.

    Usable from pytest as well as by the proxies: `from_client(line)`, `from_server(line)`,
    then `close(exit_code, stderr)`.
    """

    def __init__(self, path: Path, header: Header, *, redactor: Redactor | None = None) -> None:
        self.path = path
        self.redactor = redactor or Redactor()
        self._file: IO[str] = path.open("w", encoding="utf-8")
        self._header_written = False
        self.header = header
        self.assembler = Assembler(self._write_exchange, header)
        self.exchanges = 0

    def from_client(self, raw: bytes) -> None:
        self.assembler.from_client(raw)

    def from_server(self, raw: bytes) -> None:
        self.assembler.from_server(raw)

    def _line(self, line: dict[str, Any]) -> None:
        text = dumps(line)
        if self.redactor:
            text = self.redactor.redact_json(text)
        self._file.write(text + "\n")
        self._file.flush()

    def _ensure_header(self) -> None:
        if not self._header_written:
            self._header_written = True
            self._line(self.header.to_json())

    def _write_exchange(self, exchange: Exchange) -> None:
        self._ensure_header()
        self._line(exchange.to_json())
        self.exchanges += 1

    def close(self, exit_code: int | None, stderr: str = "") -> None:
        """Write what the session ended in the middle of, then the end line, and close the file."""
        if self._file.closed:
            return
        self._ensure_header()
        for exchange in self.assembler.unfinished():
            self._line(exchange.to_json())
        end = End(exit_code, stderr, now_iso(), self.assembler.messages, self.assembler.unparsed)
        self._line(end.to_json())
        self._file.close()


def redactor_for(secrets: list[str]) -> Redactor:
    """Secrets from the command line plus `[tool.mcpbdd] secrets` when a pyproject.toml is at hand."""
    configured: list[str] = []
    try:
        from mcpbdd.model.config import load_settings

        configured = list(load_settings({}).secrets)
    except Exception:  # no project here, or a bad one: the recording still works, with what was given
        configured = []
    return Redactor([*secrets, *configured])


__all__ = ["Recorder", "redactor_for"]
