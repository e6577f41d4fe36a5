"""`mcpbdd.kit` is `mcpbdd_kit`, the kit's own distribution (mcpbdd-kit): the same module and submodules.

A production server installs mcpbdd-kit alone and imports `mcpbdd_kit`; this name stays for servers and tests
written against mcpbdd, where `mcpbdd.kit.consent` is `mcpbdd_kit.consent` itself (see `mcpbdd._aliases`).
"""

import mcpbdd_kit
from mcpbdd._aliases import alias

alias(__name__, mcpbdd_kit)

__all__: list[str] = []  # the module is replaced by the kit's own as this runs: its names are its __all__
