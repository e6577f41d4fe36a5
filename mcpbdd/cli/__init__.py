"""The `mcpbdd` command (`mcpbdd.cli.main`): run planning, workers, progress, scaffolding, the step list."""

__all__: list[str] = []
