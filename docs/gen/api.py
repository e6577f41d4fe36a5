"""Writes reference/api.md at build time: every name `import mcpbdd` offers, then what a server imports.

The list comes from the package itself (`mcpbdd.__all__`; where each name lives: `mcpbdd._MODULES` and
`mcpbdd._NAMES`), so a name added to the front appears here without anyone editing the page; mkdocstrings
renders each from its docstring.
"""

from __future__ import annotations

import mkdocs_gen_files

import mcpbdd

__all__: list[str] = []

# What a production server imports (the kit and storage), documented module by module.
SERVER_SIDE = [
    "mcpbdd.kit.doubles",
    "mcpbdd.kit.clock",
    "mcpbdd.kit.consent",
    "mcpbdd.kit.errors",
    "mcpbdd.kit.auth",
    "mcpbdd.kit.upstream",
    "mcpbdd.storage",
]

# Classes made of parts (World: one module per concern, mcpbdd/scenario/world_*.py): their members are the parts'.
INHERITING = {"World": ["      inherited_members: true"]}

lines = [
    "# Python API",
    "",
    "Generated at build time from the docstrings. The first part is the public front: every name",
    "`import mcpbdd` offers (`mcpbdd.__all__`), each shown where it is defined. The second is what a",
    "production server imports: `mcpbdd.kit` and `mcpbdd.storage`. [Using it from Python](python.md)",
    "shows them at work.",
    "",
    "## The public front: `import mcpbdd`",
    "",
]
for name in sorted((n for n in mcpbdd.__all__ if n != "__version__"), key=str.lower):
    target = mcpbdd._MODULES[name] if name in mcpbdd._MODULES else f"{mcpbdd._NAMES[name]}.{name}"
    lines += [f"::: {target}", "    options:", "      heading_level: 3", *INHERITING.get(name, []), ""]
lines += ["## What a server imports: the kit and storage", ""]
for module in SERVER_SIDE:
    lines += [f"::: {module}", "    options:", "      heading_level: 3", "      members_order: source", ""]

with mkdocs_gen_files.open("reference/api.md", "w") as page:
    page.write("\n".join(lines))
