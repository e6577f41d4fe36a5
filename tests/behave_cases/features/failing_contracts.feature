Feature: Every contract step fails when it should, with a message that says why
  Each scenario below is expected to FAIL, against the deliberately weak server in
  tests/weak_server.py; tests/spawning/test_failing_steps.py checks the messages.

  Background:
    Given the MCP server "weak_server:mcp"

  # On the client harness the SDK's own client refuses such a result in the When step.
  @harness.context
  Scenario: output schema, but a result breaks it
    When the client calls "reading" with {"region": "north"}
    Then every result of "reading" matches its output schema

  Scenario: output schema, but the tool advertises none
    When the client calls "untyped" with {"text": "hello"}
    Then every result of "untyped" matches its output schema

  Scenario: output schema, but no call succeeded
    When the client calls "lookup" with {"key": "tau"}
    Then every result of "lookup" matches its output schema

  Scenario: output schema, but the tool was not called
    When the client calls "lookup" with {"key": "pi"}
    Then every result of "shout" matches its output schema

  Scenario: output schema, of a tool the server does not offer
    Then every result of "archive" matches its output schema

  Scenario: survives, but it leaks a traceback
    Then "lookup" survives 20 generated calls

  Scenario: survives, but it crashes on a long string
    Then "shout" survives 40 generated calls

  # tests/spawning/test_failing_steps.py configures the secret: -D mcpbdd.secrets=sk-weak-0123456789
  Scenario: survives, but it names a configured secret
    Then "connect" survives 10 generated calls

  Scenario: survives, but it answers an internal error
    Then "panic" survives 40 generated calls

  @harness.client
  Scenario: survives, but the client refuses its answers
    Then "reading" survives 10 generated calls

  Scenario: survives, a tool the server does not offer
    Then "archive" survives 10 generated calls

  Scenario: survives no calls at all
    Then "shout" survives 0 generated calls
