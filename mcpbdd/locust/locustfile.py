"""The locustfile mcpbdd hands Locust (`locust -f <this file>`): the MCP user, driven by the plan in
`$MCPBDD_LOCUST_PLAN` (see `mcpbdd.locust.plan`).

On several machines every master and worker is started with this file and the same plan (see
docs/reference/locust.md).
"""

from mcpbdd.locust.user import McpUser

__all__ = ["McpUser"]
