Feature: Many callers of many companies at once
  The notes server serves several companies at the same time. Under load each company must still see
  only its own notes, every note a caller was told was saved must be saved once, and calls must stay fast.
  Callers of three companies create and list notes at once: on the in-process server, on the server
  started as its own web service (one server, a client per caller), and over stdio, where a server process
  serves one client, so each caller gets a process of its own and the concurrency is between processes
  sharing the scenario's storage: three processes of one company numbering its notes at the same moment.

  Background:
    Given the load profile:
      | tool        | arguments                                                    | weight |
      | create_note | {"title": "{caller} note {n}", "body": "written under load"} | 3      |
      | list_notes  |                                                              | 1      |

  Scenario: Companies creating and listing notes at once stay apart, in-process
    Given 3 callers in each of the tenants "acme, globex, initech"
    When the callers run the load profile for 120 calls
    Then no call under load ended in a protocol error
    And no call under load ended in a tool error
    And each tenant's storage holds only what its own callers wrote
    And every acknowledged "create_note" is stored exactly once
    And no caller read another tenant's data under load
    And the p95 latency of every tool under load is under 1000 ms

  @harness.client
  Scenario: Companies creating and listing notes at once stay apart, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    And 3 callers in each of the tenants "acme, globex, initech"
    When the callers run the load profile 4 times each
    Then no call under load ended in a protocol error
    And no call under load ended in a tool error
    And each tenant's storage holds only what its own callers wrote
    And every acknowledged "create_note" is stored exactly once
    And no caller read another tenant's data under load
    And the p95 latency of "list_notes" under load is under 2000 ms
    And the load made at least 5 calls per second

  @harness.client
  Scenario: Companies creating and listing notes at once stay apart, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And 3 callers in each of the tenants "acme, globex, initech"
    When the callers run the load profile 3 times each
    Then no call under load ended in a protocol error
    And no call under load ended in a tool error
    And each tenant's storage holds only what its own callers wrote
    And every acknowledged "create_note" is stored exactly once
    And no caller read another tenant's data under load

  Scenario: Imports under load each reach the document service once
    Given 2 callers in each of the tenants "acme, globex"
    And the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"title": "Quarterly plan", "body": "Ship the importer"}
      """
    When the callers call "import_note" 3 times each with:
      """
      {"document_id": "d-42"}
      """
    Then no call under load ended in a tool error
    And the upstream "https://docs.example.com" received GET "/documents/d-42" once for each call of "import_note"

  @harness.client
  Scenario: Imports under load each reach the document service once, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    And 2 callers in each of the tenants "acme, globex"
    And the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"title": "Quarterly plan", "body": "Ship the importer"}
      """
    When the callers call "import_note" 3 times each with:
      """
      {"document_id": "d-42"}
      """
    Then no call under load ended in a tool error
    And the upstream "https://docs.example.com" received GET "/documents/d-42" once for each call of "import_note"

  Scenario: A load that runs for a time stops by itself and reports its throughput
    Given 2 callers in each of the tenants "acme, globex"
    And the callers arrive over 0.5 seconds
    When the callers call "list_notes" for 1 second
    Then no call under load ended in a transport error
    And no call under load ended in a timeout
    And the load made at least 20 calls per second

  # Locust's users speak the SDK client's own protocol version, so the legacy pass would not be what it says.
  @harness.client @era.modern
  Scenario: Companies creating and listing notes at once stay apart, on Locust's master and two workers
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    And 2 callers in each of the tenants "acme, globex"
    When the load runs on Locust with 2 workers for 2 seconds
    Then no call under load ended in a protocol error
    And no call under load ended in a tool error
    And each tenant's storage holds only what its own callers wrote
    And every acknowledged "create_note" is stored exactly once
    And the p95 latency of every tool under load is under 2000 ms
    And the load made at least 5 calls per second
