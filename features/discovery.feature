Feature: The notes server says who it is before any call
  Before an assistant calls anything it learns the server's name, what the server can do and
  the instructions the server gives the model: from the `initialize` answer on 2025-11-25, from
  `server/discover` on 2026-07-28. A team specifies that first impression like any other
  answer, naming only the parts that matter.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: The server names itself and tells the model what it is for
    Then the server describes itself with:
      """
      {"name": "notes", "version": "#string", "instructions": "Team notes, one notebook per tenant."}
      """

  Scenario: The server declares tools, resources and prompts
    Then the server describes itself with:
      """
      {"capabilities": {"tools": "#object", "resources": "#object", "prompts": "#object"}}
      """

  @harness.client
  Scenario: The server run as its own process describes itself the same way, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    Then the server describes itself with:
      """
      {"name": "notes", "capabilities": {"tools": "#object"}}
      """

  Scenario: A client may keep the listings a while: the tools for the caller alone, the templates for anyone
    Then the tools list may be cached for 300 seconds
    And the tools list may be cached privately
    And the prompts list may be cached for 300 seconds
    And the resource templates list may be cached publicly
    And the resources list may be cached for 0 seconds

  @harness.client
  Scenario: The caching hints reach a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    Then the tools list may be cached for 300 seconds
    And the prompts list may be cached privately

  @harness.client
  Scenario: A client of the server run as its own process, over stdio, may keep a note it read for a minute
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    When the client reads the resource "note-data://n-1"
    Then the read may be cached for 60 seconds
    And the read may be cached privately

  Scenario: The tags a user already used are offered as they type one
    Given the client calls "create_note" with {"title": "Milk", "body": "2 l", "tags": ["groceries", "home"]}
    And the client calls "create_note" with {"title": "Rent", "body": "May", "tags": ["garage", "bills"]}
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "g"
    Then the completions are:
      | garage    |
      | groceries |
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "ho"
    Then the completions include "home"

  Scenario: Another tenant's tags are never offered
    Given the user "bob" of tenant "globex"
    And "bob" calls "create_note" with {"title": "Plans", "body": "Q3", "tags": ["globex-only"]}
    And the client calls "create_note" with {"title": "Milk", "body": "2 l", "tags": ["groceries"]}
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "g"
    Then the completions are:
      | groceries |

  @harness.client
  Scenario: Completions reach a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the client calls "create_note" with {"title": "Milk", "body": "2 l", "tags": ["groceries"]}
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "gr"
    Then the completions include "groceries"

  Scenario: The notes a user already has are offered as they type a note's address
    Given the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    And the client calls "create_note" with {"title": "Rent", "body": "May"}
    Then the server offers the resource template "notes://{note_id}"
    When the client asks to complete the variable "note_id" of the resource template "notes://{note_id}" from "n-"
    Then the completions are:
      | n-1 |
      | n-2 |
    When the client asks to complete the variable "note_id" of the resource template "note-data://{note_id}" from "n-2"
    Then the completions include "n-2"

  Scenario: Another tenant's notes are never offered as addresses
    Given the user "bob" of tenant "globex"
    And "bob" calls "create_note" with {"title": "Plans", "body": "Q3", "slug": "globex-plans"}
    And the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    When the client asks to complete the variable "note_id" of the resource template "notes://{note_id}" from ""
    Then the completions are:
      | n-1 |

  @harness.client
  Scenario: Note addresses are completed for a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    Then the server offers the resource template "note-data://{note_id}"
    When the client asks to complete the variable "note_id" of the resource template "note-data://{note_id}" from "n"
    Then the completions include "n-1"
