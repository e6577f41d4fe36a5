"""The scenario that runs: the World, its conversation with the user, the run's event loop, remembered values.

`world` holds everything one scenario knows and drives the harness (`servers` builds the harness
and connector it opens for its target); `conversation` is one call's rounds of questions and
answers; `runtime` is the one event loop of the run with an owner task per scenario; `remembered`
holds the values a scenario takes from one result into a later call.
It sits above the harnesses and checks it drives and below the steps, hooks and reports that use it.
"""

__all__: list[str] = []  # a namespace for its modules: import them by name
