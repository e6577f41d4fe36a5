@harness.client
Feature: Every load check fails when it should, with a message that says why
  Each scenario below is expected to FAIL, against tests/load_servers.py, whose tools are right one call at a
  time and wrong under load; tests/spawning/test_load_failures.py checks the messages.

  Background:
    Given the MCP server "load_servers:mcp"
    And 3 callers in each of the tenants "acme, globex"

  Scenario: latency over budget
    When the callers call "slow_echo" 2 times each with:
      """
      {"text": "hello", "ms": 60}
      """
    Then the p95 latency of "slow_echo" under load is under 20 ms

  Scenario: an error budget broken
    When the callers call "flaky" for 30 calls
    Then at most 5% of the calls under load ended in the tool error "rate_limited"

  Scenario: a cross-tenant leak that shows only under concurrency
    When the callers call "create_note" 3 times each with:
      """
      {"title": "{caller} note {n}"}
      """
    Then each tenant's storage holds only what its own callers wrote

  Scenario: a caller reads another tenant's note under concurrency
    Given the load profile:
      | tool        | arguments                        | weight |
      | create_note | {"title": "{caller} note {n}"}   | 2      |
      | list_notes  |                                  | 1      |
    When the callers run the load profile 3 times each
    Then no caller read another tenant's data under load

  Scenario: a lost write
    When the callers call "append_note" 3 times each with:
      """
      {"title": "{caller} note {n}"}
      """
    Then every acknowledged "append_note" is stored exactly once

  Scenario: a profile naming a tool the server does not offer
    When the callers call "archive_notes" for 10 calls

  Scenario: a bound written another way
    When the callers call "list_notes" until it breaks

  Scenario: an integrity check with nothing to find
    When the callers call "list_notes" for 6 calls
    Then every acknowledged "list_notes" is stored exactly once

  Scenario: a latency check of a tool the load did not call
    When the callers call "list_notes" for 6 calls
    Then the p95 latency of "create_note" under load is under 100 ms

  Scenario: calls that time out count against the budget, and the load still stops
    When the callers call "stall" for 6 calls
    Then no call under load ended in a timeout

  Scenario: a server that dies mid-load keeps what was measured
    Given the MCP server "http: {python} tests/load_servers.py --http 127.0.0.1:{port}"
    Given the load profile:
      | tool      | arguments                      | weight |
      | slow_echo | {"text": "hello", "ms": 10}    | 3      |
      | die       | {"after_ms": 300}              | 1      |
    When the callers run the load profile for 5 seconds
    Then no call under load ended in a transport error

  Scenario: the upstream received fewer requests than the calls should have sent
    When the callers call "list_notes" for 6 calls
    Then the upstream "https://docs.example.com" received GET "/documents/d-42" once for each call of "list_notes"

  Scenario: a load with no bound
    When the callers run the load profile

  Scenario: an unreachable target
    Given the MCP server "http://127.0.0.1:9/mcp"
    When the callers call "list_notes" for 6 calls
