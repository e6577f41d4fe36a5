# `diff` is `mcpbdd_kit.storage.diff` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.diff import *
