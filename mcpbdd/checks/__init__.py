"""Checks beyond one scenario's expectations: what a server's surface promises against what it does.

- `output_schema`: every result of a tool matches the output schema it advertises;
- `generated`: calls generated from the input schema and an adversarial corpus (crash, leak, hang, mutation);
- `schema`: the JSON Schema validation and walking both share;
- `error_catalog`: every declared failure next to the scenarios that specify it (`mcpbdd catalog`).
"""

__all__: list[str] = []
