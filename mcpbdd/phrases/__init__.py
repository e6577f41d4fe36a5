"""The vocabulary as phrases: the listing `mcpbdd steps` prints, and the nearest phrases to an undefined step.

Read from behave's step registry, so it sits above `mcpbdd.steps` (whose modules it imports to
register them) and below the hooks (`mcpbdd.behave`) and the command line that use it.
"""

__all__: list[str] = []  # a namespace for its modules: import them by name
