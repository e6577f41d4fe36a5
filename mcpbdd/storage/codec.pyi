# `codec` is `mcpbdd_kit.storage.codec` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.codec import *
