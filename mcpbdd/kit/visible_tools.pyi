# `visible_tools` is `mcpbdd_kit.visible_tools` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.visible_tools import *
