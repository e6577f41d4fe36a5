"""`mcpbdd.kit` is `mcpbdd_kit`, the kit's own distribution (mcpbdd-kit): the same module and submodules.

A production server installs mcpbdd-kit alone and imports `mcpbdd_kit`; this name stays for servers and tests
written against mcpbdd, where `mcpbdd.kit.consent` is `mcpbdd_kit.consent` itself (see `mcpbdd._aliases`).
"""

from mcpbdd._aliases import alias, expect

expect(__name__, "mcpbdd_kit")  # first: a thread importing a submodule by the old name meanwhile finds the kit's

import mcpbdd_kit  # noqa: E402 - after `expect`, so that no thread meets the old name's folder of stubs

alias(__name__, mcpbdd_kit)

__all__: list[str] = []  # the module is replaced by the kit's own as this runs: its names are its __all__
