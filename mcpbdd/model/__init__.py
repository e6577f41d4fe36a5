"""The model of what happened in a scenario, shared by every layer above it.

A call and its outcome (`outcome`), the trace of exchanges and the events reports listen to
(`trace`), answers to a server's questions (`answers`), the JSON matcher (`matching`), the
names settings and tags share (`kinds`), the settings themselves (`config`), the errors every
layer raises (`errors`, `VacuousCheck` among them) and the redaction of secrets that every
writer applies (`redaction`). Data only: the checks of it are `mcpbdd.checks`.

It knows nothing of how a server is reached (`mcpbdd.harness`) or of the scenario that runs
(`mcpbdd.scenario`): those import it, never the other way round (the layers contract in
pyproject.toml holds this).
"""

__all__: list[str] = []  # a namespace for its modules: import them by name
