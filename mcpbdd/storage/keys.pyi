# `keys` is `mcpbdd_kit.storage.keys` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.keys import *
