@conformance
Feature: Conformance: what every MCP server must do, checked from its own surface
  Each scenario runs one check of mcpbdd's conformance pack (mcpbdd conformance TARGET), its
  calls derived from the server's own tools, resources, templates and prompts. The check's page
  in the documentation says what the spec requires and how to fix a failure. One feature, so one
  server process serves the whole pack on each era (reuse_server = "feature").

  Rule: Tools: what every server's tools must do
    The calls are derived from the server's own tools/list: names it never listed, arguments
    that break the input schema it advertises, the smallest arguments it accepts, and the
    payload a form client sends.

    @check.unknown-tool @spec.tools
    Scenario: unknown-tool: A call of a tool the server does not offer is refused
      A tools/call naming a tool the server never listed must be refused: as a tool error (isError:
      true, what the Python SDK answers by default) or as the protocol error -32602. Never a result,
      never a crash (-32603, no answer), and the refusal leaks no stack frame or path.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
      Then the server passes the conformance check "unknown-tool"

    @check.invalid-arguments @spec.tools
    Scenario: invalid-arguments: Arguments that break the input schema are refused
      A server must validate a call's arguments against the inputSchema it advertises. A call that
      leaves out a required argument or sends one of the wrong type is refused, as a tool error the
      model can read (SEP-1303) or the protocol error -32602; it never runs the tool, never crashes,
      never leaks.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
      Then the server passes the conformance check "invalid-arguments"

    @check.error-channels @spec.tools
    Scenario: error-channels: A well-formed call is never a protocol error; a malformed one is never a result
      Tool failures (a note not found, a refused operation) are tool errors the model can read and
      recover from; protocol errors are for requests the server cannot process. A call with arguments
      the input schema accepts (the smallest, unknown ids, empty strings, numeric boundaries) is never
      an internal error (-32603) or method not found (-32601), nor invalid params (-32602) unless the
      error names the argument whose value it refuses, nor any other code JSON-RPC reserves (-32768 to
      -32000: -32600, -32700, the server range) but those MCP defines for its own answers (-32042,
      -32021, -32022, -32020: URL elicitation or a client capability required, ...); and a call of
      an unknown tool or with schema-breaking arguments never comes back as a successful result.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
      Then the server passes the conformance check "error-channels"

    @check.structured-results @spec.tools
    Scenario: structured-results: Structured results match the tool's output schema
      A tool that advertises an outputSchema must return structuredContent that conforms to it in
      every successful result (clients validate it and refuse a result that does not).
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema
      Then the server passes the conformance check "structured-results"

    @check.form-payloads @spec.tools
    Scenario: form-payloads: Each tool takes a form client's payload as well as a model's
      Clients with forms send every optional field, with empty strings inside optional objects and
      empty arrays, where a model sends only what it fills in. Both shapes are valid calls: a tool
      accepts both, or refuses the form's with a tool error that names the field. It never crashes,
      hangs, leaks, or answers on the protocol channel.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools
      Then the server passes the conformance check "form-payloads"

    @check.tool-names @spec.tools
    Scenario: tool-names: Tool names are well formed and unique
      A tool name is 1 to 128 characters of ASCII letters, digits, _, - and . (SEP-986), and no two
      tools share one: clients and models address tools by name.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names
      Then the server passes the conformance check "tool-names"

    @check.tool-schemas @spec.tools
    Scenario: tool-schemas: Input and output schemas are valid JSON Schema 2020-12 objects
      A tool's inputSchema (and its outputSchema, when it has one) is a valid JSON Schema, 2020-12
      unless it names another dialect in $schema, describing an object (type: object): clients
      validate arguments and results with it.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool
      Then the server passes the conformance check "tool-schemas"

    @check.error-texts-leak-nothing @spec.security
    Scenario: error-texts-leak-nothing: Error texts and log messages leak no stack frame, path or secret
      Whatever fails, what the client reads is for the client and the model: no traceback, no File
      "...", line N, no path of the server's installation or machine, no configured secret. Read in
      the refusals (an unknown tool, bad arguments, an unknown resource) and in well-formed requests
      that fail inside the server: each tool with unknown ids, empty strings and numeric boundaries
      its schema accepts, each resource template with an unknown id, each prompt with unknown ids;
      their tool errors, protocol errors (any code) and the log messages sent during them.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
      Then the server passes the conformance check "error-texts-leak-nothing"

    @check.sep-2575-server-identifies-in-result-meta @spec.versioning
    Scenario: sep-2575-server-identifies-in-result-meta: Results name the server and its version in _meta (a SHOULD)
      On 2026-07-28 there is no initialize handshake to say who the server is, so every result
      SHOULD carry _meta["io.modelcontextprotocol/serverInfo"] with a non-empty name and version
      (SEP-2575). A SHOULD: a warning (the scenario is skipped saying so), a failure under --strict.
      Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
      Then the server passes the conformance check "sep-2575-server-identifies-in-result-meta"

  Rule: Messages: the JSON-RPC messages themselves, and how a version is agreed
    These checks write their own messages on a connection of their own (the SDK's client would
    number, negotiate and match them for the pack) and read every message that comes back.

    @check.jsonrpc-messages @spec.messages
    Scenario: jsonrpc-messages: Responses carry their request's id; notifications get no response
      Every response carries the id of the request it answers (a string stays a string), exactly
      once, with a result or an error whose code is an integer; a method nobody defines is an error,
      never a result; a notification, known or not, is never answered; on 2026-07-28 a request
      without its required _meta field is refused with -32602. Sent: the handshake or server/discover,
      a request with an integer id, an unknown method, an unknown notification, one more request (and
      on 2026-07-28 one without clientCapabilities), each waiting for its answer (bounded in time and
      in messages read).
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic#messages
      Then the server passes the conformance check "jsonrpc-messages"

    @check.version-negotiation @spec.lifecycle
    Scenario: version-negotiation: An initialize offering an unsupported version is answered with a version the server supports
      On 2025-11-25 an initialize offering a version the server does not support is answered with
      another version it supports, never an error or the offered version echoed back; and offering
      that version then gets the same version back.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
      Then the server passes the conformance check "version-negotiation"

    @check.server-discover @spec.versioning
    Scenario: server-discover: server/discover names the versions the server supports and its capabilities
      On 2026-07-28 a server implements server/discover: its result lists supportedVersions, which
      include the version the session speaks, and the server's capabilities.
      Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/discover
      Then the server passes the conformance check "server-discover"

  Rule: Authorization: what a client without a token sees at the HTTP edge
    Over HTTP only (a stdio server takes its credentials from the environment), and only on a
    server that refuses a request without a token.

    @check.protected-resource-metadata @spec.authorization
    Scenario: protected-resource-metadata: A protected HTTP server says where to get a token, and refuses a token it never issued
      A request without a token is answered 401 with a Bearer challenge naming resource_metadata
      (or the RFC 9728 document is at its well-known URI); the document is a JSON object whose
      authorization_servers names at least one; a bearer token the server never issued is 401 too.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-location
      Then the server passes the conformance check "protected-resource-metadata"

  Rule: Resources: what a read of a missing resource comes to
    The URI is one no resource or template of the server can match.

    @check.unknown-resource @spec.resources
    Scenario: unknown-resource: Reading a resource that does not exist is -32602 with data.uri
      resources/read of a URI that no resource or template serves is the protocol error -32602
      (invalid params) whose data.uri is the URI asked for (SEP-2164), so a client can tell which read
      failed. Not a result with empty contents, not -32002, not a crash.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling
      Then the server passes the conformance check "unknown-resource"

  Rule: Listings: capabilities, pagination and caching hints
    Every list the server's declared capabilities promise (tools, resources, resource
    templates, prompts), read page by page as a client reads it.

    @check.capabilities-served @spec.lifecycle
    Scenario: capabilities-served: Every declared capability is served
      A server that declares tools, resources or prompts answers the list requests of that capability
      (tools/list; resources/list and resources/templates/list; prompts/list) with a result, not an
      error: a client trusts the declaration and lists what it was told exists.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation
      Then the server passes the conformance check "capabilities-served"

    @check.pagination @spec.pagination
    Scenario: pagination: List pagination is consistent
      Following nextCursor page by page reaches the end (a page without a cursor) and no item appears
      twice; listing again from the start gives the same items. The cursor is opaque and stable enough
      to be followed.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination
      Then the server passes the conformance check "pagination"

    @check.bad-cursor @spec.pagination
    Scenario: bad-cursor: A cursor the server never issued is refused with -32602
      A list request with a cursor the server did not issue should be refused with the protocol error
      -32602 (invalid params). A server may instead ignore it and list from the start, but it must
      answer: no other error code, no crash, no hang.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination#error-handling
      Then the server passes the conformance check "bad-cursor"

    @check.caching-hints @spec.caching
    Scenario: caching-hints: List results carry caching hints
      On 2026-07-28 every list result says how long a client may cache it and for whom: ttlMs and
      cacheScope (private or shared), so a client need not list again before each call.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination
      Then the server passes the conformance check "caching-hints"

    @check.result-type @spec.multi-round-trip
    Scenario: result-type: Every result says its resultType
      On 2026-07-28 every result names its resultType (complete, or input_required when the server
      needs answers first), so a client knows whether the request is done.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools
      Then the server passes the conformance check "result-type"

  Rule: Input rounds: the request state a client holds
    The call is the first of the server's tools that asks for input when called with its
    smallest arguments (2026-07-28 only).

    @check.tampered-request-state @spec.multi-round-trip
    Scenario: tampered-request-state: A tampered request state is refused
      On 2026-07-28 a call that needs input returns InputRequiredResult with an opaque requestState
      the client echoes back (SEP-2322). The server must not trust a state it did not issue: a retry
      carrying an altered state is refused with the protocol error -32602, and the tool does not run.
      Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools
      Then the server passes the conformance check "tampered-request-state"
