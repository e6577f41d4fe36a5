"""Record a real client's session, turn it into a feature, verify a new build against it.

- `through_recorder(out, command)`: the `StdioServerParameters` to give `mcp.Client` so its
  session is recorded (from pytest);
- `record_stdio(command, out)` / `proxy(...)`: the stdio proxy behind `mcpbdd record`;
  `Recorder` writes a cassette from wire lines (usable from pytest with any transport).
- `read(path)` / `parse(lines)`: a cassette (see docs/cassette.md for the format).
- `write_feature(cassette, command=... | url=...)`: the feature text, volatile values found by replaying twice.
- `verify_cassette(cassette, command=... | url=..., redactor=...)`: a `Report` of drift per exchange and JSON path.
- `replay(cassette, command=... | url=...)`: the recorded client side sent again.
- `mcpbdd.record.bridge`: the stdio proxy's pump behind a loopback Streamable HTTP endpoint, so a
  client that speaks only HTTP (the official conformance suite) reaches a stdio server.

The caller always names the server: the command or URL in a cassette's header is never run.

Kept out of the kit: nothing here is for a production server.
"""

from mcpbdd.record.cassette import Cassette, CassetteError, End, Exchange, Header, parse, read, write
from mcpbdd.record.feature import write_feature
from mcpbdd.record.recorder import Recorder
from mcpbdd.record.replay import Replayed, ReplayError, replay, replay_sync
from mcpbdd.record.stdio_proxy import proxy, record_stdio, through_recorder
from mcpbdd.record.verify import Report, Verdict, verify_cassette
from mcpbdd.scenario.remembered import Remembered

__all__ = [
    "Cassette",
    "CassetteError",
    "End",
    "Exchange",
    "Header",
    "Recorder",
    "Remembered",
    "ReplayError",
    "Replayed",
    "Report",
    "Verdict",
    "parse",
    "proxy",
    "read",
    "record_stdio",
    "replay",
    "replay_sync",
    "through_recorder",
    "verify_cassette",
    "write",
    "write_feature",
]
