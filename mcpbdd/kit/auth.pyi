# `auth` is `mcpbdd_kit.auth` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.auth import *
