# `adapter` is `mcpbdd_kit.storage.adapter` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.adapter import *
