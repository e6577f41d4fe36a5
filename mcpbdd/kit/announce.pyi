# `announce` is `mcpbdd_kit.announce` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.announce import *
