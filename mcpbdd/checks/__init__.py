"""What a phrase asserts, and checks beyond one scenario's expectations.

A phrase's check and its failure message live in the module named like the steps module that parses it
(`mcpbdd/steps/outcomes.py` -> `outcomes`; likewise `rounds`, `server`, `storage`, `upstream`, `logs`,
`progress`, `announcements`, `cancellation`, `apps`, `authorization`; the discovery phrases' are `described`,
`cache_hints` and `completions`, which also ask the server through either harness). `guards` refuses input
that would check nothing; `expect` gathers the checks of calls for the public front (`mcpbdd.expect`).

Beyond one scenario, what a server's surface promises against what it does:
- `output_schema`: every result of a tool matches the output schema it advertises;
- `generated`: calls generated from the input schema and an adversarial corpus (crash, leak, hang, mutation);
- `schema`: the JSON Schema validation and walking both share;
- `error_catalog`: every declared failure next to the scenarios that specify it (`mcpbdd catalog`).
"""

__all__: list[str] = []
