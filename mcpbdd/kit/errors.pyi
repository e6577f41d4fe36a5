# `errors` is `mcpbdd_kit.errors` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.errors import *
