# `jwks_keys` is `mcpbdd_kit.jwks_keys` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.jwks_keys import *
