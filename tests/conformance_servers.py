"""Servers that each break one rule of the conformance pack (and a clean one): the pack must fail each.

Each is an `MCPServer` whose handlers are overridden the way a hand-rolled dispatcher goes wrong,
so the check meets the failure over the real wire (the SDK's client and server), not a fake.
"""

from __future__ import annotations

import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListPromptsResult,
    ListToolsResult,
    TextContent,
    Tool,
)

__all__ = ["VARIANTS", "clean"]


def _ok(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"result": text})


def _tools(server: MCPServer[Any]) -> None:
    @server.tool()
    def lookup(note_id: str) -> str:
        """A tool with a required argument (what the schema checks break)."""
        raise ToolError(f"Note {note_id} not found.")

    @server.resource("clean://{item}")
    def item(item: str) -> str:
        return item

    @server.prompt()
    def greet(name: str) -> str:
        return f"Hello {name}"


clean = MCPServer("clean", version="1.0.0")
_tools(clean)


class _AcceptsUnknownTools(MCPServer[Any]):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        if name != "lookup":
            return _ok(f"ran {name}")
        return await super().call_tool(name, arguments, context)


class _SkipsValidation(MCPServer[Any]):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        if name == "lookup":
            return _ok(f"looked up {arguments!r}")
        return await super().call_tool(name, arguments, context)


class _WrongNotFound(MCPServer[Any]):
    async def read_resource(self, uri: Any, context: Context[Any, Any] | None = None) -> Any:
        raise MCPError(-32002, "Resource not found")


class _TrustsState(MCPServer[Any]):
    """Asks for input with a plain state and trusts whatever state comes back (no sealing)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        if name == "confirm" and context is not None and context.request_state is None:
            question = ElicitRequest(
                params=ElicitRequestFormParams(message="Sure?", requested_schema={"type": "object", "properties": {}})
            )
            return InputRequiredResult(input_requests={"sure": question}, request_state="step=1;user=anyone")
        if name == "confirm":
            return _ok("confirmed")
        return await super().call_tool(name, arguments, context)


class _Leaky(MCPServer[Any]):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        if name != "lookup":
            trace = f'Traceback (most recent call last):\n  File "{__file__}", line 3, in dispatch\nKeyError: {name!r}'
            return CallToolResult(content=[TextContent(type="text", text=trace)], is_error=True)
        return await super().call_tool(name, arguments, context)


_OUTPUT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


class _WrongStructure(MCPServer[Any]):
    async def list_tools(self) -> list[Tool]:
        return [Tool(name="count", input_schema={"type": "object", "properties": {}}, output_schema=_OUTPUT)]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        return CallToolResult(content=[TextContent(type="text", text="3")], structured_content={"count": "three"})


class _ProtocolForToolErrors(MCPServer[Any]):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        if name == "lookup" and "note_id" in arguments:
            raise MCPError(INTERNAL_ERROR, "lookup failed")
        return await super().call_tool(name, arguments, context)


class _BadNamesAndSchemas(MCPServer[Any]):
    async def list_tools(self) -> list[Tool]:
        return [
            Tool(name="look up/notes", input_schema={"type": "object", "properties": {"q": {"type": "strin"}}}),
            Tool(name="look up/notes", input_schema={"type": "object"}),
        ]


class _EndlessPages(MCPServer[Any]):
    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=await self.list_tools(), next_cursor="again")


class _CrashesOnCursor(MCPServer[Any]):
    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        if params is not None and params.cursor:
            raise MCPError(INTERNAL_ERROR, "cannot decode the cursor")
        return ListToolsResult(tools=await self.list_tools())


class _DeclaresUnservedPrompts(MCPServer[Any]):
    async def _handle_list_prompts(self, ctx: Any, params: Any) -> ListPromptsResult:
        raise MCPError(METHOD_NOT_FOUND, "prompts/list is not implemented")


def _build(cls: type[MCPServer[Any]], name: str) -> MCPServer[Any]:
    server = cls(name)
    _tools(server)
    return server


accepts_unknown_tools = _build(_AcceptsUnknownTools, "accepts-unknown-tools")
skips_validation = _build(_SkipsValidation, "skips-validation")
wrong_not_found = _build(_WrongNotFound, "wrong-not-found")
trusts_state = _build(_TrustsState, "trusts-state")
trusts_state.middleware.clear()  # no RequestStateBoundary: the state comes back unsealed and unchecked


@trusts_state.tool()
def confirm() -> str:
    """Asks the user first (the override answers)."""
    return "unreachable"


leaky = _build(_Leaky, "leaky")
wrong_structure = _build(_WrongStructure, "wrong-structure")
protocol_for_tool_errors = _build(_ProtocolForToolErrors, "protocol-for-tool-errors")
bad_names_and_schemas = _build(_BadNamesAndSchemas, "bad-names-and-schemas")
endless_pages = _build(_EndlessPages, "endless-pages")
crashes_on_cursor = _build(_CrashesOnCursor, "crashes-on-cursor")
declares_unserved_prompts = _build(_DeclaresUnservedPrompts, "declares-unserved-prompts")

form_crash = MCPServer("form-crash")


@form_crash.tool()
def tag_note(note_id: str, label: str | None = None, extra: list[str] | None = None) -> str:
    """Crashes on an empty label (a form leaves it blank): `label[0]` of ""."""
    if label is not None:
        return f"{note_id}: {label[0]}"
    return note_id


form_vague = MCPServer("form-vague")


@form_vague.tool()
def rename(note_id: str, title: str | None = None) -> str:
    """Refuses a blank title without saying which field was wrong."""
    if title == "":
        raise ToolError("Something was wrong with the request.")
    return note_id


_TRACE = 'Traceback (most recent call last):\n  File "/srv/notes/db.py", line 42, in lookup\nKeyError: {}'

traceback_on_failure = MCPServer("traceback-on-failure")


@traceback_on_failure.tool()
def find_note(note_id: str) -> str:
    """Refuses what a client gets wrong like the SDK does; a note it cannot find is a traceback on -32603."""
    raise MCPError(INTERNAL_ERROR, _TRACE.format(note_id))


template_leak = MCPServer("template-leak")


@template_leak.resource("notes://{note_id}")
def note(note_id: str) -> str:
    """A note it cannot find is a protocol error whose message is the traceback (the tools are clean)."""
    raise MCPError(INTERNAL_ERROR, _TRACE.format(note_id))


log_leak = MCPServer("log-leak")


@log_leak.tool()
async def archive(note_id: str, ctx: Context[Any, Any]) -> str:
    """Answers a clean tool error, but logs the traceback to the client first."""
    await ctx.error(_TRACE.format(note_id))
    raise ToolError(f"Note {note_id} not found.")


prompt_leak = MCPServer("prompt-leak")


@prompt_leak.prompt()
def summarise(note_id: str) -> str:
    """A prompt whose unknown note is a protocol error carrying the traceback."""
    raise MCPError(INTERNAL_ERROR, _TRACE.format(note_id))


reserved_refusal = MCPServer("reserved-refusal")


@reserved_refusal.tool()
def delete_note(note_id: str) -> str:
    """Refuses the operation with the reserved code -32600 (invalid request), not a tool error."""
    raise MCPError(-32600, f"Note {note_id} is locked.")


server_range_refusal = MCPServer("server-range-refusal")


@server_range_refusal.tool()
def delete_draft(draft_id: str) -> str:
    """Refuses the operation with -32001, which the SDKs read as a request timeout."""
    raise MCPError(-32001, f"Draft {draft_id} is locked.")


application_refusal = MCPServer("application-refusal")


@application_refusal.tool()
def delete_page(page_id: str) -> str:
    """Refuses the operation with an application code outside JSON-RPC's reserved block (allowed)."""
    raise MCPError(4004, f"Page {page_id} is locked.")


needs_capability = MCPServer("needs-capability")


@needs_capability.tool()
def list_roots_here(folder: str) -> str:
    """Answers with MCP's own -32021: the client did not declare a capability the tool needs."""
    raise MCPError(-32021, "Client did not declare the roots capability", data={"requiredCapabilities": {"roots": {}}})


def _signed_in() -> bool:
    from mcp.server.auth.middleware.auth_context import get_access_token

    return get_access_token() is not None


members_only = MCPServer("members-only")


@members_only.tool()
def list_notes(cursor: str | None = None) -> str:
    """Refuses an anonymous caller; for a signed-in one it crashes on the blank cursor a form sends."""
    if not _signed_in():
        raise ToolError("Unauthorized: sign in first.")
    if cursor is not None:
        return f"page after {cursor[0]}"  # IndexError on ""
    return "first page"


flood = MCPServer("flood")


@flood.tool()
async def chatty(note_id: str, ctx: Context[Any, Any]) -> str:
    """Floods the client with log messages while it fails; one deep in the flood carries a traceback."""
    for number in range(400):
        await ctx.debug(f"looking at shard {number}" if number != 333 else _TRACE.format(note_id))
    raise ToolError(f"Note {note_id} not found.")


unruly = MCPServer("unruly")


@unruly.tool()
def die() -> str:
    """Ends the server's process (in process: the behave job's, were the pack to run it there)."""
    import os

    os._exit(3)


@unruly.tool()
def stall(note_id: str, label: str | None = None) -> str:
    """Answers a model's payload; never answers the blank label a form sends."""
    if label is not None:
        import time

        time.sleep(3600)
    return note_id


VARIANTS: dict[str, MCPServer[Any]] = {
    "unknown-tool": accepts_unknown_tools,
    "invalid-arguments": skips_validation,
    "unknown-resource": wrong_not_found,
    "tampered-request-state": trusts_state,
    "error-texts-leak-nothing": leaky,
    "structured-results": wrong_structure,
    "error-channels": protocol_for_tool_errors,
    "tool-names": bad_names_and_schemas,
    "tool-schemas": bad_names_and_schemas,
    "pagination": endless_pages,
    "bad-cursor": crashes_on_cursor,
    "capabilities-served": declares_unserved_prompts,
    "form-payloads": form_crash,
}
"""The server that breaks each check (caching-hints and result-type: the SDK's runner always stamps them)."""

if __name__ == "__main__":
    VARIANTS.get(sys.argv[1], clean).run("stdio") if len(sys.argv) > 1 else clean.run("stdio")
