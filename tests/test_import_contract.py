"""The import contracts: the layers hold, and a production server that imports the kit gets no test framework with it.

`lint-imports` (run by `make lint`) checks the contracts in pyproject.toml statically; these
tests show it fails on a forbidden import, and check at run time what importing the kit loads.

The tests of this concern that start processes are in tests/spawning/test_import_contract.py.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_layers_name_every_module_there_is() -> None:
    """Read from pyproject.toml: every top-level module and package of mcpbdd/ but the front is in exactly one layer."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    (layers,) = [contract for contract in contracts if contract["type"] == "layers"]
    named = [name.strip() for layer in layers["layers"] for name in re.split(r"[|:]", layer)]
    present = sorted(
        path.stem if path.suffix == ".py" else path.name
        for path in (ROOT / "mcpbdd").iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    )
    assert sorted(named) == present
