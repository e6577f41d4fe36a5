# `upstream` is `mcpbdd_kit.upstream` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.upstream import *
