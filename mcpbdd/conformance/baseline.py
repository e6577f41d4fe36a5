"""The expected-failures file: known failures turned into expected ones, and entries that now pass.

YAML, like the official conformance suite's baseline: a list of check ids, or a mapping whose
`server` key holds that list. An entry is a check id (expected to fail on both eras) or
`id@era` (`unknown-resource@2025-11-25`: on that era only).

    server:
      - unknown-resource            # refused with -32002 until the SDK upgrade
      - caching-hints@2026-07-28
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from mcpbdd.conformance.registry import check_named

__all__ = ["Baseline", "load_baseline"]


@dataclass(frozen=True)
class Baseline:
    """The entries of an expected-failures file, as (check id, era or None for both)."""

    entries: tuple[tuple[str, str | None], ...] = ()

    def expects(self, check: str, era: str) -> bool:
        return any(name == check and where in (None, era) for name, where in self.entries)

    def entry(self, check: str, era: str) -> str | None:
        """The entry's text as written (`id` or `id@era`) that expects this failure, or None."""
        for name, where in self.entries:
            if name == check and where in (None, era):
                return name if where is None else f"{name}@{where}"
        return None


def load_baseline(path: Path | None) -> Baseline:
    """Read the expected-failures file (ValueError naming what is wrong with it; none given: an empty baseline)."""
    if path is None:
        return Baseline()
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read the expected-failures file {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"the expected-failures file {path} is not YAML: {exc}") from None
    if isinstance(document, dict):
        document = document.get("server", [])
    if document is None:
        document = []
    if not isinstance(document, list) or not all(isinstance(entry, str) for entry in document):
        raise ValueError(f"the expected-failures file {path} must list check ids (under `server:`, or at the top)")
    entries: list[tuple[str, str | None]] = []
    for entry in document:
        name, _, era = entry.strip().partition("@")
        check_named(name)  # a ValueError naming the known checks
        entries.append((name, era or None))
    return Baseline(tuple(entries))
