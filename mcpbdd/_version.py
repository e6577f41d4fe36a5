"""The package's version, in a seam of its own so that any layer (the reports write it) can read it without
importing the public front, which loads the harnesses."""

__version__ = "0.3.0"

__all__ = ["__version__"]
