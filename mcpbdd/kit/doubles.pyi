# `doubles` is `mcpbdd_kit.doubles` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.doubles import *
