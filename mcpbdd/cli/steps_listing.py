"""`mcpbdd steps`: the step vocabulary, grouped by concern, with an example of each (`mcpbdd.phrases.vocabulary`).

    mcpbdd steps [--markdown]

Plain text for a terminal; Markdown for a wiki or the README.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mcpbdd.runner.exits import EXIT_OK

__all__ = ["add_parser", "main"]


def add_parser(commands: Any) -> None:
    """Register `steps` on the `mcpbdd` command's subparsers."""
    steps = commands.add_parser("steps", help="list the step vocabulary, grouped, with an example of each")
    steps.add_argument("--markdown", action="store_true", help="print Markdown (for a wiki or the README)")


def main(args: argparse.Namespace) -> int:
    """Print the vocabulary: every step mcpbdd registers, grouped by concern, with its example."""
    from mcpbdd.phrases import vocabulary

    sys.stdout.write(vocabulary.markdown() if args.markdown else vocabulary.text())
    return EXIT_OK
