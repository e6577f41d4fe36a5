@conformance
Feature: Resources: what a read of a missing resource comes to
  The URI is one no resource or template of the server can match.
  Each scenario runs one check of mcpbdd's conformance pack (mcpbdd conformance TARGET);
  the check's page in the documentation says what the spec requires and how to fix a failure.

  @check.unknown-resource @spec.resources
  Scenario: unknown-resource: Reading a resource that does not exist is -32602 with data.uri
    resources/read of a URI that no resource or template serves is the protocol error -32602
    (invalid params) whose data.uri is the URI asked for (SEP-2164), so a client can tell which read
    failed. Not a result with empty contents, not -32002, not a crash.
    Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling
    Then the server passes the conformance check "unknown-resource"
