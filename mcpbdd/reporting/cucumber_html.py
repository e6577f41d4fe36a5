"""Cucumber's own HTML report of a run's Cucumber Messages, rendered by `@cucumber/html-formatter`.

    mcpbdd run --messages reports/cucumber-messages.ndjson
    mcpbdd report --messages reports/cucumber-messages.ndjson     # -> reports/html/cucumber.html

The formatter (npm, pinned, with the `@cucumber/messages` it needs as a peer) is installed on
first use into mcpbdd's cache, like Allure (`mcpbdd.reporting.npm`), and runs in Node.js: a
few lines of JavaScript stream the NDJSON envelopes into its `CucumberHtmlStream`. The page is
one self-contained file. The same install ships the official JSON schema of the messages
(`messages.schema.json`), which the tests validate every envelope against.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from mcpbdd.reporting.html import RenderError, _node
from mcpbdd.reporting.npm import InstallError, cache_root, install

__all__ = ["HTML_FORMATTER_VERSION", "MESSAGES_VERSION", "formatter_home", "messages_schema", "render_messages"]

HTML_FORMATTER_VERSION = "24.2.0"
MESSAGES_VERSION = "34.2.1"
"""The npm `@cucumber/messages` paired with the formatter (the PyPI `cucumber-messages` 34.2 writes this version)."""

_SCRIPT = """
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

const [formatter, input, output] = process.argv.slice(2);
const { CucumberHtmlStream } = await import(pathToFileURL(formatter).href);
async function* envelopes() {
  for await (const line of createInterface({ input: createReadStream(input), crlfDelay: Infinity })) {
    if (line.trim()) yield JSON.parse(line);
  }
}
await pipeline(Readable.from(envelopes()), new CucumberHtmlStream(), createWriteStream(output));
"""


def formatter_home(*, quiet: bool = False) -> Path:
    """The installed packages' `node_modules` folder (installing them on first use)."""
    _node_path, npm = _node()
    home = cache_root() / "cucumber-html" / f"{HTML_FORMATTER_VERSION}-{MESSAGES_VERSION}"
    modules = home / "node_modules"
    packages = [f"@cucumber/html-formatter@{HTML_FORMATTER_VERSION}", f"@cucumber/messages@{MESSAGES_VERSION}"]
    try:
        install(npm, home, packages, modules / "@cucumber" / "messages" / "messages.schema.json", quiet=quiet)
    except InstallError as exc:
        raise RenderError(str(exc)) from exc
    return modules


def messages_schema(*, quiet: bool = False) -> Path:
    """The official JSON schema of one envelope (draft 2020-12, every message type under `$defs`)."""
    return formatter_home(quiet=quiet) / "@cucumber" / "messages" / "messages.schema.json"


def render_messages(messages: Path, output: Path, *, quiet: bool = False) -> Path:
    """Render a Cucumber Messages stream (NDJSON) into one HTML file; returns its absolute path.

    Either path may be relative (to the working folder); the one returned is absolute, so a
    caller can turn it into a `file://` link (`Path.as_uri` refuses a relative path).
    """
    if not messages.is_file():
        raise FileNotFoundError(f"no Cucumber Messages at {messages} (run `mcpbdd run --messages {messages}` first)")
    node, _npm = _node()
    modules = formatter_home(quiet=quiet)
    entry = modules / "@cucumber" / "html-formatter" / "dist" / "src" / "index.js"
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mcpbdd-cucumber-html-") as scratch:
        script = Path(scratch) / "render.mjs"
        script.write_text(_SCRIPT, encoding="utf-8")
        done = subprocess.run(
            [node, str(script), str(entry), str(messages.resolve()), str(output.resolve())],
            capture_output=True,
            text=True,
        )
    if done.returncode != 0 or not output.is_file():
        raise RenderError(
            f"@cucumber/html-formatter could not render {messages} (exit {done.returncode}):\n{done.stderr}"
        )
    return output.resolve()
