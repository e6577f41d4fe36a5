"""Cucumber's own HTML report of a run's Cucumber Messages, rendered by `@cucumber/html-formatter`.

    mcpbdd run --messages reports/cucumber-messages.ndjson
    mcpbdd report --messages reports/cucumber-messages.ndjson     # -> reports/html/cucumber.html

The formatter (npm, pinned, with the `@cucumber/messages` it needs as a peer) is installed on
first use into mcpbdd's cache, like Allure (`mcpbdd.reporting.npm`), and runs in Node.js: a
few lines of JavaScript stream the NDJSON envelopes into its `CucumberHtmlStream`. The page is
one self-contained file. The same install ships the official JSON schema of the messages
(`messages.schema.json`), which the tests validate every envelope against.

The formatter's page says neither which pass it shows nor that its FAILED count includes the
broken scenarios (Cucumber has no broken status). Each page's title and a line above the
formatter's own header say both (`_headed`): the harness and protocol era of its scenarios, and
how many of the failed are broken (the specification or its set-up is wrong, the message says
`BROKEN:` or a hook failed: `mcpbdd.reporting.broken`).
"""

from __future__ import annotations

import html
import json
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcpbdd.model.kinds import LEGACY_ERA, MODERN_ERA
from mcpbdd.reporting.html import RenderError, _node
from mcpbdd.reporting.names import harness_suffix
from mcpbdd.reporting.npm import LOCKS, InstallError, cache_root, install
from mcpbdd.reporting.runs import case_verdicts

__all__ = [
    "HTML_FORMATTER_VERSION",
    "MESSAGES_VERSION",
    "formatter_home",
    "messages_schema",
    "pass_streams",
    "render_messages",
    "stream_heading",
]

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
    lock = LOCKS / "cucumber-html"  # pins both versions (tests/test_npm_locks.py)
    try:
        install(npm, home, lock, modules / "@cucumber" / "messages" / "messages.schema.json", quiet=quiet)
    except InstallError as exc:
        raise RenderError(str(exc)) from exc
    return modules


def messages_schema(*, quiet: bool = False) -> Path:
    """The official JSON schema of one envelope (draft 2020-12, every message type under `$defs`)."""
    return formatter_home(quiet=quiet) / "@cucumber" / "messages" / "messages.schema.json"


def pass_streams(messages: Path) -> dict[str, Path]:
    """The streams a run of several passes wrote beside `messages` (`cucumber-messages.client.ndjson`), by pass."""
    found = sorted(messages.parent.glob(f"{messages.stem}.*{messages.suffix}"))
    return {path.name[len(messages.stem) + 1 : -len(messages.suffix) or None]: path for path in found}


def render_messages(messages: Path, output: Path, *, quiet: bool = False) -> Path:
    """Render a Cucumber Messages stream (NDJSON) into one HTML file; returns its absolute path.

    A run of several passes wrote a stream per pass beside `messages` (and not `messages`
    itself): each is rendered to its own page (`cucumber.client.html`), and `output` is an
    index linking them, so every pass's run is shown with its own verdicts.

    Either path may be relative (to the working folder); the one returned is absolute, so a
    caller can turn it into a `file://` link (`Path.as_uri` refuses a relative path).
    """
    if not messages.is_file():
        streams = pass_streams(messages)
        if not streams:
            raise FileNotFoundError(
                f"no Cucumber Messages at {messages} (run `mcpbdd run --messages {messages}` first)"
            )
        pages = {
            name: _render(path, output.with_name(f"{output.stem}.{name}{output.suffix}"), quiet=quiet)
            for name, path in streams.items()
        }
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(_index(pages), encoding="utf-8")
        return output.resolve()
    return _render(messages, output, quiet=quiet)


def _index(pages: dict[str, Path]) -> str:
    """A page linking each pass's Cucumber report."""
    items = "\n".join(
        f'    <li><a href="{html.escape(page.name, quote=True)}">{html.escape(name)}</a></li>'
        for name, page in pages.items()
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        "<title>Cucumber reports by pass</title></head>\n"
        f"<body>\n  <h1>Cucumber reports by pass</h1>\n  <ul>\n{items}\n  </ul>\n</body>\n</html>\n"
    )


def _render(messages: Path, output: Path, *, quiet: bool) -> Path:
    """One stream rendered by the formatter into one self-contained page."""
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
    title, line, broken = stream_heading(_envelopes(messages))
    if broken:
        line += (
            f" (the FAILED count below includes the {broken} broken: Cucumber has no broken status, their "
            "messages say BROKEN or name the hook that failed)"
        )
    output.write_text(_headed(output.read_text(encoding="utf-8"), title, line), encoding="utf-8")
    return output.resolve()


def _envelopes(messages: Path) -> Iterable[dict[str, Any]]:
    with messages.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def stream_heading(envelopes: Iterable[dict[str, Any]]) -> tuple[str, str, int]:
    """(the page's title, a line of its passes and verdicts' counts, how many are broken) of a stream: failed and
    broken apart (`mcpbdd.reporting.runs.case_verdicts`), where the formatter counts both FAILED."""
    scenarios = case_verdicts(envelopes)
    passes = dict.fromkeys(harness_suffix(scenario.name).strip("[]") for scenario in scenarios)
    named = [f"{name}, protocol {LEGACY_ERA if 'legacy' in name else MODERN_ERA}" for name in passes if name]
    where = "; ".join(named) or "no pass named"
    counts = {word: sum(s.verdict == word for s in scenarios) for word in ("passed", "failed", "broken", "skipped")}
    line = f"{where}: {len(scenarios)} scenarios, " + ", ".join(f"{n} {word}" for word, n in counts.items())
    return f"Cucumber report: {where}", line, counts["broken"]


def _headed(page: str, title: str, line: str) -> str:
    """The formatter's page with `title` and `line` (escaped: a scenario's name is the author's text)."""
    page = page.replace("<title>Cucumber</title>", f"<title>{html.escape(title)}</title>", 1)
    banner = (
        '<p id="mcpbdd-pass" style="font-family: sans-serif; margin: 1em 2em; font-weight: bold">'
        f"{html.escape(line)}</p>"
    )
    return page.replace("<body>", f"<body>{banner}", 1)
