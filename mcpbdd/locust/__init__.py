"""Scale a load out on Locust: the MCP user, the master and workers it starts, and their statistics read back.

`run_locust` (in `mcpbdd.locust.runner`) is the entry point. Nothing here imports `locust` at import time: only a
Locust process does (through `locustfile.py`), since importing it monkey-patches the whole process with gevent.
"""

__all__: list[str] = []
