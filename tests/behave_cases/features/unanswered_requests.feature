Feature: A request the server never answers fails its step, naming the request
  tests/spawning/test_bounded_requests.py runs this with a call timeout of 0.3 s, on both harnesses. Every
  scenario fails on purpose, within the timeout, instead of hanging the run.

  Scenario: a tool error, then a listing the server never answers
    Given the MCP server "servers:silent_listing"
    When the client calls "refuse"
    Then the call fails with a tool error

  Scenario: the tools of a server that never lists them
    Given the MCP server "servers:silent_listing"
    Then the server offers the tool "refuse"

  @harness.client
  Scenario: a server over stdio that never lists its tools
    Given the MCP server "stdio: {python} -m servers silent_listing"
    When the client calls "refuse"
    Then the call fails with a tool error

  Scenario: a tool that blocks the event loop
    Given the MCP server "servers:awkward"
    When the client calls "block" with {"seconds": 1.5}
    Then the call succeeds
