# `service` is `mcpbdd_kit.storage.service` itself (mcpbdd/_aliases.py): its names, for type checkers.
from mcpbdd_kit.storage.service import *
