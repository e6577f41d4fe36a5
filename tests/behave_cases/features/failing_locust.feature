@harness.client
Feature: The load's checks read Locust's statistics, and fail on them with a message that says why
  Each scenario below is expected to FAIL, against tests/load_servers.py served over HTTP, whose tools are
  right one call at a time and wrong under load; tests/spawning/test_locust_phrase.py checks the messages.

  Background:
    Given the MCP server "http: {python} tests/load_servers.py --http 127.0.0.1:{port}"
    And 2 callers in each of the tenants "acme, globex"

  Scenario: an error budget broken, read from Locust's statistics
    Given the load profile:
      | tool  |
      | flaky |
    When the load runs on Locust with 2 workers for 2 seconds
    Then at most 5% of the calls under load ended in the tool error "rate_limited"

  Scenario: a cross-tenant leak under Locust's load
    Given the load profile:
      | tool        | arguments                      |
      | create_note | {"title": "{caller} note {n}"} |
    When the load runs on Locust with 2 workers for 2 seconds
    Then each tenant's storage holds only what its own callers wrote

  Scenario: an in-process server, which Locust cannot reach
    Given the MCP server "load_servers:mcp"
    And the load profile:
      | tool       |
      | list_notes |
    When the load runs on Locust with 2 workers for 2 seconds

  Scenario: a stdio server, which Locust cannot reach
    Given the MCP server "stdio: {python} tests/load_servers.py"
    And the load profile:
      | tool       |
      | list_notes |
    When the load runs on Locust with 2 workers for 2 seconds

  Scenario: a profile naming a tool the server does not offer, refused before Locust starts
    Given the load profile:
      | tool          |
      | archive_notes |
    When the load runs on Locust with 2 workers for 2 seconds
