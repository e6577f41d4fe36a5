"""pytest tests of mcpbdd.storage and mcpbdd.clock (a package, so its conftest does not shadow tests/conftest.py)."""
