"""Load with meaning: many callers of many tenants at once, with latency, error channels and isolation checked.

`results` is the model every engine reports in (one sample per call, summarised per tool).
"""

from mcpbdd.load.results import CHANNELS, ERROR_CHANNELS, CallChannel, CallSample, LoadResult, ToolSummary

__all__ = ["CHANNELS", "ERROR_CHANNELS", "CallChannel", "CallSample", "LoadResult", "ToolSummary"]
