"""`mcpbdd.storage` is `mcpbdd_kit.storage`, in the kit's own distribution (mcpbdd-kit): the same objects.

The kit's consent gates and scenario doubles keep their state in it, so it ships with the kit; this name stays
for servers and tests written against mcpbdd (see `mcpbdd._aliases`).
"""

from mcpbdd._aliases import alias, expect

expect(__name__, "mcpbdd_kit.storage")  # first: a thread importing a submodule meanwhile finds the kit's

import mcpbdd_kit.storage  # noqa: E402 - after `expect`, so that no thread meets the old name's folder of stubs

alias(__name__, mcpbdd_kit.storage)

__all__: list[str] = []  # the module is replaced by the kit's own as this runs: its names are its __all__
