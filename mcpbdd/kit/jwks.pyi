# `jwks` is `mcpbdd_kit.jwks` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.jwks import *
