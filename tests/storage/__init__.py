"""Tests of mcpbdd.storage and mcpbdd.kit.clock (a package, so its conftest does not shadow tests/conftest.py)."""
