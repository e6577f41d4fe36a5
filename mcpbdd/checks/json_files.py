"""Reading the JSON files the checks keep (coverage, a tool surface): one way, one wording for a broken one.

Each file says what it is in its `format` field, so a file of another kind (or another
version) is refused by name rather than read as if it were empty.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["load_json_file"]


def load_json_file(path: Path | str, format_: str, not_one: str) -> dict[str, Any]:
    """The JSON object in `path`, whose `format` is `format_`; otherwise ValueError naming the file and why.

    `not_one` says what the file then is not (`not a tool surface (...)`).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != format_:
        raise ValueError(f"{path}: {not_one}")
    return data
