# `protected` is `mcpbdd_kit.protected` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.protected import *
