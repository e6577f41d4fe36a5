"""The passes of a run over several harnesses: what each one tells behave, and which pinned scenarios it leaves out.

`mcpbdd run --harness context,client` (or `both`) runs the specifications once per harness;
`--harness all` runs the parity matrix's columns:

    context         the context harness (2026-07-28, no transport)
    client.auto     the client harness, 2026-07-28 (the SDK's `mode="auto"`)
    client.legacy   the client harness on the 2025-11-25 initialize handshake
    stdio           the client harness against the server started over stdio (only when
                    `parity_stdio` under [tool.mcpbdd] names the command)

A pass is a name (the JUnit sub-folder, the matrix's column) and the `-D` options that make a
behave process run it. In a run over several passes, a scenario a tag pins to one harness runs
only in the passes that harness can serve (`@harness.client` in both client passes,
`@harness.client.legacy` only in the legacy one), so no scenario is reported twice in a column.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpbdd.model.kinds import ClientMode, HarnessKind, harness_tag, harness_tags

__all__ = ["ALL", "LEGACY", "MODERN", "STDIO", "Pass", "pass_named", "pass_options", "pass_overrides", "passes_for_all"]

MODERN = "client.auto"
LEGACY = "client.legacy"
STDIO = "stdio"
ALL = "all"


@dataclass(frozen=True)
class Pass:
    """One column of a run over several harnesses."""

    name: str
    defines: tuple[tuple[str, str], ...]
    """`-D name=value` options (behave userdata) that select this pass's harness, mode and server."""
    excluded: tuple[str, ...]
    """Tags (without `@`) of the scenarios pinned elsewhere: left out of this pass."""
    title: str
    """How the matrix heads the column."""
    overrides: tuple[tuple[str, str], ...] = ()
    """`-D` options that must win over the command line's own (the stdio column's server): placed last."""

    def options(self, pinned_elsewhere: bool) -> list[str]:
        args: list[str] = []
        for name, value in self.defines:
            args += ["-D", f"{name}={value}"]
        if pinned_elsewhere and self.excluded:
            args += ["--tags", " and ".join(f"not @{tag}" for tag in self.excluded)]
        return args


def _others(kind: HarnessKind) -> tuple[str, ...]:
    return tuple(tag for other in HarnessKind if other is not kind for tag in harness_tags(other))


_CONTEXT = Pass("context", (("mcpbdd.harness", "context"),), _others(HarnessKind.CONTEXT), "context")
_CLIENT = Pass(
    "client",
    (("mcpbdd.harness", "client"),),
    _others(HarnessKind.CLIENT),
    "client 2026-07-28",
)
"""The plain client pass (`--harness client` or `both`): the configured client mode, every client pin."""
_CLIENT_MODERN = Pass(
    MODERN,
    (("mcpbdd.harness", "client"), ("mcpbdd.client_mode", str(ClientMode.AUTO))),
    (*_others(HarnessKind.CLIENT), harness_tag(HarnessKind.CLIENT, ClientMode.LEGACY)),
    "client 2026-07-28",
)
_CLIENT_LEGACY = Pass(
    LEGACY,
    (("mcpbdd.harness", "client"), ("mcpbdd.client_mode", str(ClientMode.LEGACY))),
    (*_others(HarnessKind.CLIENT), harness_tag(HarnessKind.CLIENT, ClientMode.AUTO)),
    "client 2025-11-25",
)


def _stdio(command: str) -> Pass:
    server = command if command.startswith("stdio:") else f"stdio: {command}"
    return Pass(
        STDIO,
        (("mcpbdd.harness", "client"), ("mcpbdd.client_mode", str(ClientMode.AUTO))),
        (*_others(HarnessKind.CLIENT), harness_tag(HarnessKind.CLIENT, ClientMode.LEGACY)),
        "stdio 2026-07-28",
        overrides=(("mcpbdd.server", server),),
    )


def passes_for_all(stdio_command: str | None) -> list[Pass]:
    """The parity matrix's columns: context, client (2026-07-28), client (2025-11-25), and stdio when configured."""
    columns = [_CONTEXT, _CLIENT_MODERN, _CLIENT_LEGACY]
    if stdio_command:
        columns.append(_stdio(stdio_command))
    return columns


def pass_named(name: str, stdio_command: str | None = None) -> Pass:
    """The pass a worker runs: a harness kind (`context`, `client`) or a matrix column (`client.legacy`, `stdio`)."""
    if name == LEGACY:
        return _CLIENT_LEGACY
    if name == MODERN:
        return _CLIENT_MODERN
    if name == STDIO:
        if not stdio_command:
            raise ValueError("the stdio column needs parity_stdio under [tool.mcpbdd] (the command that starts it)")
        return _stdio(stdio_command)
    return {"context": _CONTEXT, "client": _CLIENT}[name]


def pass_options(name: str, pinned_elsewhere: bool, stdio_command: str | None = None) -> list[str]:
    """behave's options (`-D`, and `--tags` leaving out the scenarios pinned elsewhere) for the pass `name`."""
    return pass_named(name, stdio_command).options(pinned_elsewhere)


def pass_overrides(name: str | None, stdio_command: str | None = None) -> list[str]:
    """The pass's `-D` options that go after the command line's (a later `-D` wins in behave)."""
    if name is None:
        return []
    return [arg for key, value in pass_named(name, stdio_command).overrides for arg in ("-D", f"{key}={value}")]
