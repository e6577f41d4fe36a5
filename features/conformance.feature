@harness.client
Feature: The example server keeps the protocol's rules
  The bundled conformance pack (mcpbdd conformance TARGET runs it with no feature at all) is also
  a step: here every check of it, on each era the client harness speaks. A check that finds nothing
  to exercise is named in the report, never counted as passed.

  Scenario: every check of the bundled pack
    Then the server passes the conformance checks

  Scenario: an unknown resource is refused as SEP-2164 says
    Then the server passes the conformance check "unknown-resource"
