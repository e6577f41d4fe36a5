"""Generated calls: does a tool survive inputs nobody wrote a scenario for?

`check_generated_calls(harness, tool, n)` makes `n` calls of `tool` with inputs generated
from the input schema the server advertises, plus adversarial values, and judges every
answer. The step `Then "{tool}" survives {n} generated calls` is its synchronous World
wrapper, `check_generated_calls_in_world(world, tool, n)`.

Inputs (`inputs`, `strategies`, `adversarial`)
  * From the schema: hypothesis with hypothesis-jsonschema, seeded, so a run is reproducible
    (the seed is printed; by default it is derived from the tool's name). If
    hypothesis-jsonschema cannot handle a schema (or does not work with the installed
    hypothesis), mcpbdd's own hypothesis strategy for the usual keywords (types,
    properties, required, items, enum, const, anyOf/oneOf/allOf, $ref, bounds, pattern)
    takes over and the report says so. Keys the schema does not name are left to the
    adversarial inputs rather than generated (see `generate_inputs`).
  * Adversarial values, mutating one top-level argument of a valid input at a time: very
    long strings, control characters, unicode edge cases, format strings, wrong types, huge
    numbers, deep nesting (`DEEP` levels, inside what every transport carries), extra keys,
    missing required keys.

Verdicts on every call (`verdicts`, `calls`)
  * no crash: no internal error (-32603), no "Error executing tool NAME" result in exactly
    the form the SDK gives an unexpected exception, no transport failure;
  * no leak, after removing echoes of the input itself: no traceback or stack frame, no
    configured secret, no path of the server's installation (its code, its Python's prefix,
    standard library and site-packages), and in an error no other absolute path of the
    server's side (working folder, home, temp folder, anything under /usr/, /home/, /tmp/,
    ...; `paths`);
  * no hang: every call has a timeout (the harness's, or `timeout=`); after MAX_HANGS hung
    calls the rest are skipped, since each would wait for the whole timeout;
  * the client accepts the answer (the client harness's SDK client refuses, for instance,
    a result that breaks the advertised output schema);
  * optionally no mutation: with `snapshot=`, a call the server rejected must leave the
    snapshot unchanged (the hook the storage steps plug into).

A call the transport cannot carry (arguments nested deeper than the SDK's stdio parser or
client serialiser accept) never reached the tool: it is counted as a transport/SDK limit and
breaks no verdict (`limits`).

The first failing input of each kind is shrunk (`shrinking`: same verdict, fewer and shorter
values) and printed (`report`, `rendering`) with the seed that reproduces the run. Generated
calls go straight to the harness, not through the World, so they do not flood the
scenario's trace; the failing ones are in the report. The entry points are in `check`.
"""

from __future__ import annotations

from mcpbdd.checks.generated.adversarial import DEEP, adversarial_inputs
from mcpbdd.checks.generated.calls import CallRunner, Snapshot
from mcpbdd.checks.generated.check import (
    MAX_HANGS,
    check_generated_calls,
    check_generated_calls_in_world,
    default_seed,
)
from mcpbdd.checks.generated.inputs import Generator, generate_inputs, plan_inputs
from mcpbdd.checks.generated.limits import (
    CLIENT_ARGUMENT_DEPTH,
    STDIO_ARGUMENT_DEPTH,
    TRANSPORT_LIMIT,
    nesting_depth,
)
from mcpbdd.checks.generated.paths import COMMON_ROOTS, ServerPaths, server_paths
from mcpbdd.checks.generated.rendering import render_input
from mcpbdd.checks.generated.report import FailedCall, GeneratedReport, Shrunk
from mcpbdd.checks.generated.strategies import schema_strategy
from mcpbdd.checks.generated.verdicts import (
    CRASH,
    HANG,
    KINDS,
    LEAK,
    LIMIT,
    MUTATION,
    REFUSED,
    Rules,
    judge,
)

__all__ = [
    "CLIENT_ARGUMENT_DEPTH",
    "COMMON_ROOTS",
    "CRASH",
    "DEEP",
    "HANG",
    "KINDS",
    "LEAK",
    "LIMIT",
    "MAX_HANGS",
    "MUTATION",
    "REFUSED",
    "STDIO_ARGUMENT_DEPTH",
    "TRANSPORT_LIMIT",
    "CallRunner",
    "FailedCall",
    "GeneratedReport",
    "Generator",
    "Rules",
    "ServerPaths",
    "Shrunk",
    "Snapshot",
    "adversarial_inputs",
    "check_generated_calls",
    "check_generated_calls_in_world",
    "default_seed",
    "generate_inputs",
    "judge",
    "nesting_depth",
    "plan_inputs",
    "render_input",
    "schema_strategy",
    "server_paths",
]
