Feature: The notes server tells a listening client what changed
  An assistant keeps the list of tools it may use and the notes it shows. Rather than asking
  again and again, it listens: the server announces when a tenant turns its archive on (the
  archive tool becomes usable, so the tools list changed) and when a note it shows was edited.
  A client is told only what it asked to hear, and nothing when nothing changed.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: Turning the archive on changes the tools a tenant can use
    When the client listens for changes to the tools list
    And the client calls "set_archiving" with {"enabled": true}
    Then the call succeeds
    And the server announces that the tools list changed

  Scenario: A setting left as it was changes nothing
    When the client listens for changes to the tools list
    And the client calls "set_archiving" with {"enabled": false}
    Then the result mentions "already off"
    And the server announces nothing

  Scenario: Editing a note tells the client that shows it
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                                 |
      | notes/n-1 | {"id": "n-1", "title": "Plan", "body": "Ship", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |
    When the client listens for changes to the resource "notes://n-1"
    And the client calls "edit_note" with {"note_id": "n-1", "body": "Ship on Friday"}
    Then the call succeeds
    And the server announces that the resource "notes://n-1" changed

  Scenario: A client hears only what it asked to hear
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                                 |
      | notes/n-1 | {"id": "n-1", "title": "Plan", "body": "Ship", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |
    When the client listens for changes to the prompts list
    And the client listens for changes to the resources list
    And the client calls "edit_note" with {"note_id": "n-1", "body": "Ship on Friday"}
    And the client calls "set_archiving" with {"enabled": true}
    Then the server announces nothing

  @harness.client
  Scenario: Announcements reach a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    When the client calls "create_note" with {"title": "Plan", "body": "Ship", "slug": "n-1"}
    And the client listens for changes to the tools list
    And the client listens for changes to the resource "notes://n-1"
    And the client calls "set_archiving" with {"enabled": true}
    And the client calls "edit_note" with {"note_id": "n-1", "body": "Ship on Friday"}
    Then the server announces that the tools list changed
    And the server announces that the resource "notes://n-1" changed

  @harness.client
  Scenario: Announcements reach a client of the server run as a web service, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    When the client calls "create_note" with {"title": "Plan", "body": "Ship", "slug": "n-1"}
    And the client listens for changes to the tools list
    And the client listens for changes to the resource "notes://n-1"
    And the client calls "set_archiving" with {"enabled": true}
    And the client calls "edit_note" with {"note_id": "n-1", "body": "Ship on Friday"}
    Then the server announces that the tools list changed
    And the server announces that the resource "notes://n-1" changed
