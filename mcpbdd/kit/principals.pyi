# `principals` is `mcpbdd_kit.principals` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.principals import *
