# `errors` is `mcpbdd_kit.storage.errors` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.errors import *
