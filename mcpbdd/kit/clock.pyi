# `clock` is `mcpbdd_kit.clock` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.clock import *
