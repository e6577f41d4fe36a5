# `doubles_file` is `mcpbdd_kit.storage.doubles_file` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.doubles_file import *
