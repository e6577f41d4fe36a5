@conformance
Feature: Input rounds: the request state a client holds
  The call is the first of the server's tools that asks for input when called with its
  smallest arguments (2026-07-28 only).
  Each scenario runs one check of mcpbdd's conformance pack (mcpbdd conformance TARGET);
  the check's page in the documentation says what the spec requires and how to fix a failure.

  @check.tampered-request-state @spec.multi-round-trip @era.2026-07-28
  Scenario: tampered-request-state: A tampered request state is refused
    On 2026-07-28 a call that needs input returns InputRequiredResult with an opaque requestState
    the client echoes back (SEP-2322). The server must not trust a state it did not issue: a retry
    carrying an altered state is refused with the protocol error -32602, and the tool does not run.
    Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools
    Then the server passes the conformance check "tampered-request-state"
