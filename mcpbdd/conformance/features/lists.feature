@conformance
Feature: Listings: capabilities, pagination and caching hints
  Every list the server's declared capabilities promise (tools, resources, resource
  templates, prompts), read page by page as a client reads it.
  Each scenario runs one check of mcpbdd's conformance pack (mcpbdd conformance TARGET);
  the check's page in the documentation says what the spec requires and how to fix a failure.

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

  @check.caching-hints @spec.caching @era.2026-07-28
  Scenario: caching-hints: List results carry caching hints
    On 2026-07-28 every list result says how long a client may cache it and for whom: ttlMs and
    cacheScope (private or shared), so a client need not list again before each call.
    Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination
    Then the server passes the conformance check "caching-hints"

  @check.result-type @spec.multi-round-trip @era.2026-07-28
  Scenario: result-type: Every result says its resultType
    On 2026-07-28 every result names its resultType (complete, or input_required when the server
    needs answers first), so a client knows whether the request is done.
    Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools
    Then the server passes the conformance check "result-type"
