@harness.client
Feature: The note card, with the notes server run as its own process
  The same card, with the server started as the program a team ships: over stdio (a process per
  user, started as them) and as a web service over HTTP (one process, callers told apart by their
  tokens). The view's call still goes out as the person looking at the card, and lands in the
  company's storage the scenario reads.

  These scenarios run on the client harness, the only one that reaches a server process.

  Scenario Outline: Pinning from the card over <transport>
    Given the MCP server "<server>"
    And the user "alice" of tenant "acme"
    And the user "bob" of tenant "acme"
    And the caller is "bob"
    And the storage of tenant "acme" holds:
      | key       | value                                                                                                                  |
      | notes/n-1 | {"id": "n-1", "title": "Launch plan", "body": "Friday", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    And the user clicks "Pin" in the app
    Then the app called the tool "pin_note"
    And the call succeeds
    And the app shows "Pinned by bob"
    And the app shows no error
    And the storage of tenant "acme" holds "pins/n-1" equal to:
      """
      {"note_id": "n-1", "by": "bob", "reason": "", "at": "2026-01-01T00:00:00+00:00"}
      """

    Examples:
      | transport | server                                                          |
      | stdio     | stdio: {python} -m mcpbdd.examples.notes                        |
      | HTTP      | http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} |
