# `kit` is `mcpbdd_kit` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit import *
