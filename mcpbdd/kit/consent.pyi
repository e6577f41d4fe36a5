# `consent` is `mcpbdd_kit.consent` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.consent import *
