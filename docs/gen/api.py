"""Writes reference/api.md at build time: every name `import mcpbdd` offers, then what a server imports.

The list comes from the package itself (`mcpbdd.__all__`; where each name lives: `mcpbdd._MODULES` and
`mcpbdd._NAMES`), so a name added to the front appears here without anyone editing the page; mkdocstrings
renders each from its docstring.
"""

from __future__ import annotations

import mkdocs_gen_files

import mcpbdd

__all__: list[str] = []

# What a production server imports (the kit's own distribution, storage included), documented module by module
# under the kit's own names (mkdocstrings reads the source in kit/; `mcpbdd.kit.X` is the same module).
SERVER_SIDE = [
    "mcpbdd_kit.doubles",
    "mcpbdd_kit.clock",
    "mcpbdd_kit.consent",
    "mcpbdd_kit.errors",
    "mcpbdd_kit.auth",
    "mcpbdd_kit.upstream",
    "mcpbdd_kit.storage",
]

KIT_NAMES = {"mcpbdd.kit": "mcpbdd_kit", "mcpbdd.storage": "mcpbdd_kit.storage"}
"""The kit's former names inside mcpbdd and its own: mkdocstrings reads source files, and the kit's are in kit/."""


def kit_name(target: str) -> str:
    """`target` under the kit's own name where it is the kit's (`mcpbdd.kit.clock.X` -> `mcpbdd_kit.clock.X`)."""
    for old, new in KIT_NAMES.items():
        if target == old or target.startswith(old + "."):
            return new + target[len(old) :]
    return target


# Classes made of parts (World: one module per concern, mcpbdd/scenario/world_*.py): their members are the parts'.
INHERITING = {"World": ["      inherited_members: true"]}

lines = [
    "# Python API",
    "",
    "Generated at build time from the docstrings. The first part is the public front: every name",
    "`import mcpbdd` offers (`mcpbdd.__all__`), each shown where it is defined. The second is what a",
    "production server imports: the kit, `mcpbdd_kit` (`mcpbdd.kit` and `mcpbdd.storage` under mcpbdd; see",
    "[Production](kit-security.md#production)). [Using it from Python](python.md) shows them at work.",
    "",
    "## The public front: `import mcpbdd`",
    "",
]
for name in sorted((n for n in mcpbdd.__all__ if n != "__version__"), key=str.lower):
    target = mcpbdd._MODULES[name] if name in mcpbdd._MODULES else f"{mcpbdd._NAMES[name]}.{name}"
    target = kit_name(target)
    lines += [f"::: {target}", "    options:", "      heading_level: 3", *INHERITING.get(name, []), ""]
lines += ["## What a server imports: the kit and storage", ""]
for module in SERVER_SIDE:
    lines += [f"::: {module}", "    options:", "      heading_level: 3", "      members_order: source", ""]

with mkdocs_gen_files.open("reference/api.md", "w") as page:
    page.write("\n".join(lines))
