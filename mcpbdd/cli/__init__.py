"""The `mcpbdd` command: `mcpbdd.cli.main` parses and dispatches, a module per subcommand (its options, then the
call to the code that does the work); the run itself and its parts are `mcpbdd.runner`'s."""

__all__: list[str] = []
