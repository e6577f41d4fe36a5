"""A project file that lists entries as YAML strings: the lint baseline and the expected-failures file.

Both are a list of strings, at the top of the file or under one key (`accepted:`, `server:`), that a
reviewer edits by hand; both must name the file and what is wrong with it when it cannot be read,
is not YAML, or holds something other than strings. What each entry means is the reader's.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["read_listed"]


def read_listed(path: Path, *, key: str, what: str, shape: str) -> list[str]:
    """The strings `path` lists (at the top or under `key`); an empty file lists none.

    ValueError names the file as `what` (e.g. "the lint baseline") and, for a wrong shape, says
    what it must hold (`shape`).
    """
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{what} {path} is not YAML: {exc}") from None
    if isinstance(document, dict):
        document = document.get(key, [])
    if document is None:
        document = []
    if not isinstance(document, list) or not all(isinstance(entry, str) for entry in document):
        raise ValueError(f"{what} {path} must list {shape}")
    return [entry.strip() for entry in document]
