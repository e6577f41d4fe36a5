"""What `mcpbdd report` does around Allure's render: the history file masked, shards' coverage merged.

Allure 3 keeps a history file (`reports/allure-history.jsonl` by default) and embeds it in every
report it renders; the history carries earlier runs' names and messages forward. A run made
before a secret was configured (or rendered from unredacted results) must not put the secret
into the next report, so the file is masked before and after each render.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["merged_coverage", "redact_history"]


def redact_history(history: Path | None) -> None:
    """Mask the project's configured secrets in the history file, in place (nothing when none is configured)."""
    if history is None or not history.is_file():
        return
    from mcpbdd.model.config import load_settings
    from mcpbdd.model.redaction import Redactor

    try:
        secrets = load_settings().secrets
    except ValueError:
        return  # no readable project settings: nothing configured to mask
    if not secrets:
        return
    text = history.read_text(encoding="utf-8")
    masked = Redactor(secrets).redact(text)
    if masked != text:
        history.write_text(masked, encoding="utf-8")


def merged_coverage(files: Sequence[Path] | None) -> dict[str, Any] | None:
    """Coverage files (one per CI shard) merged into one; None for none.

    FileNotFoundError names every missing file; ValueError an unreadable one.
    """
    if not files:
        return None
    from mcpbdd.checks.coverage import load_coverage, merge

    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"no coverage file: {', '.join(missing)} (run `mcpbdd run` or `mcpbdd coverage -o`)")
    return merge(load_coverage(path) for path in files)
