"""The step vocabulary. A project installs every step with one line in its `steps/` folder:

    from mcpbdd.steps import *  # noqa: F403

Steps only parse the phrase, act through the World (or a harness) and check with the module of `mcpbdd.checks`
named like theirs (`steps/outcomes.py` checks with `checks/outcomes.py`), so everything a step does is available
to Python code too.

Every behave process imports this package before it runs anything, so a step module imports at its top
only behave, its parsing (`arguments`) and `_world`; a step imports what its phrase needs (the checks,
the SDK's types, the app host, conformance, the reports) in its body, when it runs.
tests/spawning/test_startup_imports.py holds the list of what must not load up front.
"""

# `arguments` first: it registers the parameter types (Text, Names, CodeWord, Kind, Unit) the other modules use.
from mcpbdd.steps import (  # noqa: F401  (registering the steps is the point)
    announcements,
    apps,
    arguments,
    authorization,
    callers,
    calls,
    cancellation,
    conformance,
    consent,
    contracts,
    discovery,
    load,
    logs,
    outcomes,
    progress,
    remembering,
    rounds,
    server,
    storage,
    surface,
    upstream,
)

__all__: list[str] = []
