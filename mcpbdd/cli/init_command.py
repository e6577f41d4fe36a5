"""`mcpbdd init`: a project's first specification, passing, in one command.

    mcpbdd init --server package.module:attr [--harness context|client] [DIRECTORY]

Writes what the README's "Writing your first scenario" describes, so nothing is copied
by hand: `environment.py` (the hooks), `steps/mcpbdd_steps.py` (the vocabulary),
`[tool.mcpbdd]` and `[tool.behave]` in `pyproject.toml`, and `features/<server>.feature`
with one scenario that lists the tools the server really offers (read from the server
itself), so `behave` passes straight away and the product owner edits from a green
start. Existing files are never overwritten, and existing `[tool.*]` tables are left
as they are: running it twice is harmless. It then lists each file written or kept, the tools the server
offers, and the three commands to try.

One module for the command: its options (`add_parser`), the scaffold (`scaffold`, for Python callers too) and
what it tells the user next (`main`).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpbdd.model.kinds import HarnessKind
from mcpbdd.runner.exits import EXIT_OK, EXIT_USAGE

__all__ = ["InitError", "Scaffold", "add_parser", "main", "scaffold"]


class InitError(ValueError):
    """The server cannot be loaded, or the directory cannot take the scaffold."""


ENVIRONMENT = '''"""behave hooks: mcpbdd's, installed with one line (call them from your own hooks if you add some)."""

from mcpbdd.behave import *  # noqa: F403
'''

STEPS = '''"""The mcpbdd step vocabulary (`mcpbdd steps` lists it), installed with one line."""

from mcpbdd.steps import *  # noqa: F403
'''


@dataclass
class Scaffold:
    """What `init` did: files written, files kept as they were, and the tools found."""

    written: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "server"


def _cell(text: str) -> str:
    """`text` as a Gherkin table cell holds it: a backslash, a pipe and a line break escaped (the parser reads
    the cell back as `text`)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n")


def _feature(title: str, tools: list[str]) -> str:
    """One scenario that lists the server's tools (all of them when it has none, so it still says something)."""
    cells = [_cell(name) for name in ["name", *tools]]
    width = max(len(cell) for cell in cells)
    rows = "".join(f"      | {cell.ljust(width)} |\n" for cell in cells)
    exactly = "" if tools else " exactly"
    return (
        f"Feature: The {title} MCP server\n"
        "  The first specification of this server, written by `mcpbdd init`. Run it with `behave`\n"
        "  or `mcpbdd run`; `mcpbdd steps` lists every phrase you can write.\n"
        "\n"
        "  Scenario: The server offers its tools\n"
        '    Given the tenant "demo"\n'
        f"    Then the server offers{exactly} the tools:\n"
        f"{rows}"
    )


def _tools(target: str, directory: Path) -> tuple[str, list[str]]:
    """The server's name and its tools' names, read from the server itself (imported on first use: `mcpbdd`'s
    other commands do not pay for the harness). The name goes into the feature's title: on one line, printable
    characters only, so no name starts a step or a scenario of its own."""
    from mcpbdd.harness.targets import ServerTarget, load_inprocess
    from mcpbdd.model.errors import TargetError

    parsed = ServerTarget.parse(target)
    if parsed.kind != "inprocess":
        raise InitError(f"--server {target!r}: init needs an in-process server, package.module:attr")
    sys.path.insert(0, str(directory))
    try:
        server = load_inprocess(parsed)
    except TargetError as exc:
        raise InitError(str(exc)) from exc
    finally:
        sys.path.remove(str(directory))
    tools = asyncio.run(server.list_tools())
    title = "".join(c for c in " ".join(str(getattr(server, "name", None) or "").split()) if c.isprintable())
    return title or target.split(":")[0], [tool.name for tool in tools]


def _write(path: Path, text: str, done: Scaffold) -> None:
    if path.exists():
        done.kept.append(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    done.written.append(path)


def _pyproject(path: Path, server: str, harness: str, done: Scaffold) -> None:
    tables = {
        "mcpbdd": f'[tool.mcpbdd]\nserver = "{server}"\nharness = "{harness}"   # or "client"\n',
        "behave": '[tool.behave]\npaths = ["features"]\n',
    }
    if not path.exists():
        path.write_text("\n".join(tables.values()), encoding="utf-8")
        done.written.append(path)
        return
    text = path.read_text(encoding="utf-8")
    try:
        existing = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"{path} is not valid TOML ({exc}); fix it, then run init again") from exc
    missing = [body for name, body in tables.items() if name not in existing]
    if not missing:
        done.kept.append(path)
        return
    path.write_text(text.rstrip("\n") + "\n\n" + "\n".join(missing), encoding="utf-8")
    done.written.append(path)


def scaffold(directory: Path, server: str, *, harness: str = "context") -> Scaffold:
    """Write the scaffold into `directory` (created if needed) for the server `server`."""
    directory = directory.resolve()
    if directory.exists() and not directory.is_dir():
        raise InitError(f"{directory} is not a directory")
    directory.mkdir(parents=True, exist_ok=True)
    title, tools = _tools(server, directory)
    done = Scaffold(tools=tools)
    _write(directory / "environment.py", ENVIRONMENT, done)
    _write(directory / "steps" / "mcpbdd_steps.py", STEPS, done)
    _write(directory / "features" / f"{_slug(title)}.feature", _feature(title, tools), done)
    _pyproject(directory / "pyproject.toml", server, harness, done)
    return done


def add_parser(commands: Any) -> None:
    """Register `init` on the `mcpbdd` command's subparsers."""
    init = commands.add_parser(
        "init",
        help="scaffold features/, steps/, environment.py and [tool.mcpbdd] with a first passing scenario",
    )
    init.add_argument("--server", required=True, help="the server under test: package.module:attr")
    init.add_argument("directory", nargs="?", type=Path, default=Path("."), help="the project folder (default: .)")
    init.add_argument(
        "--harness", choices=list(HarnessKind), default=HarnessKind.CONTEXT, help="the default harness to configure"
    )


def main(args: argparse.Namespace) -> int:
    try:
        done = scaffold(args.directory, args.server, harness=args.harness)
    except InitError as exc:
        print(f"mcpbdd init: {exc}", file=sys.stderr)
        return EXIT_USAGE
    root = args.directory.resolve()
    for path in done.written:
        print(f"  wrote {path.relative_to(root)}")
    for path in done.kept:
        print(f"  kept  {path.relative_to(root)} (already there)")
    tools = ", ".join(done.tools) or "no tools yet"
    print(f"\nmcpbdd: {args.server} offers {tools}. Next, in {root}:")
    print("  behave            # the first scenario passes")
    print("  mcpbdd steps      # the phrases you can write")
    print("  mcpbdd run        # with Allure results and JUnit XML; then: mcpbdd report")
    return EXIT_OK
