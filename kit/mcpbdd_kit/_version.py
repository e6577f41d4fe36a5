"""The kit's version: mcpbdd's own (tests/test_kit_distribution.py keeps the two equal; they are released together)."""

__version__ = "0.3.0"

__all__ = ["__version__"]
