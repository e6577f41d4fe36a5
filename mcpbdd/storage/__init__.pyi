# `storage` is `mcpbdd_kit.storage` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage import *
