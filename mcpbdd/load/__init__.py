"""Load with meaning: many callers of many tenants at once, with latency, error channels and isolation checked.

`results` is the model every engine reports in (one sample per call, summarised per tool, a timeline);
`profile` says what the callers do and when they stop; `driver` runs a profile against an entered harness;
`checks` judges a run (latency, throughput, errors by channel, storage isolation, writes stored once, reads
isolated); `scenario` ties them to a World (`load_of(world)`), as the Load phrases do; `charts` draws it.

    from mcpbdd.load import LoadBound, LoadProfile, LoadStep, run_load
    run = await run_load(harness, callers, LoadProfile([LoadStep("list_notes")], LoadBound(calls=100)))
    print(run.result.per_tool["list_notes"].p95_ms)
"""

from mcpbdd.load import checks
from mcpbdd.load.driver import Answer, LoadRun, Written, open_sessions, run_load
from mcpbdd.load.profile import LoadBound, LoadProfile, LoadSpecError, LoadStep
from mcpbdd.load.results import CHANNELS, ERROR_CHANNELS, CallChannel, CallSample, LoadResult, ToolSummary
from mcpbdd.load.scenario import ScenarioLoad, load_of

__all__ = [
    "CHANNELS",
    "ERROR_CHANNELS",
    "Answer",
    "CallChannel",
    "CallSample",
    "LoadBound",
    "LoadProfile",
    "LoadResult",
    "LoadRun",
    "LoadSpecError",
    "LoadStep",
    "ScenarioLoad",
    "ToolSummary",
    "Written",
    "checks",
    "load_of",
    "open_sessions",
    "run_load",
]
