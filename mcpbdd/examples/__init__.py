"""Example MCP servers bundled with mcpbdd: the demo's subject and the showcase of what can be specified."""

__all__: list[str] = []
