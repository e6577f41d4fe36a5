"""The `mcpbdd` command (`mcpbdd.cli.main` parses and dispatches): the run and its parts, a module per subcommand."""

__all__: list[str] = []
