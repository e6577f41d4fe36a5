# `providers` is `mcpbdd_kit.storage.providers` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.providers import *
