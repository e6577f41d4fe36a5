# `scopes` is `mcpbdd_kit.scopes` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.scopes import *
