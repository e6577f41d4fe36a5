Feature: The note card, the app a person sees
  `show_note_card` returns a note and points the host at its view, `ui://notes/card.html`: a card
  with the note's title, body and tags, a "Reason" field, a "Pin" button and an "Open in Notes"
  link. mcpbdd renders the view in a real headless browser, as a host would: sandboxed, under the
  view's own content security policy, initialized with the host's theme and locale, and given
  the tool's input and result. What the view then asks of the host is recorded; the tools it calls
  are ordinary calls of the scenario, made as the person looking at it.

  Background:
    Given the user "alice" of tenant "acme"
    And the user "bob" of tenant "acme"
    And the caller is "alice"
    And the storage of tenant "acme" holds:
      | key       | value                                                                                                                         |
      | notes/n-1 | {"id": "n-1", "title": "Launch plan", "body": "Ship on Friday", "tags": ["launch"], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: The card shows the note and nothing goes wrong
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app shows "Launch plan"
    And the app shows "Ship on Friday"
    And the app shows "Tags: launch"
    And the app shows no error
    And the app breaks no content security rule

  Scenario: Pinning from the card is a call of the person looking at it, with its storage effect
    Given the caller is "bob"
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    And the user types "for Monday" into "Reason" in the app
    And the user clicks "Pin" in the app
    Then the app called the tool "pin_note"
    And the call succeeds
    And the structured result contains:
      """
      {"note_id": "n-1", "by": "bob", "reason": "for Monday"}
      """
    And the app shows "Pinned by bob"
    And the storage of tenant "acme" holds "pins/n-1" equal to:
      """
      {"note_id": "n-1", "by": "bob", "reason": "for Monday", "at": "2026-01-01T00:00:00+00:00"}
      """

  Scenario: The card asks the host to open the note on the web, and the host only records it
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    And the user clicks "Open in Notes" in the app
    Then the app asked to open "https://notes.example.com/n/n-1"
    And the app shows no error

  Scenario: A note the caller's company does not have is a card saying so
    Given the caller is "alice"
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-9"}
    Then the call fails with a tool error mentioning "not found"
    And the app shows "Could not load the note"

  Scenario: The card with widgets loads what its policy lists, and the browser refuses the rest
    Given the upstream "https://cdn.example.com" answers GET "/card.css" with status 200 and:
      """
      "body { border-top: 4px solid #36c; }"
      """
    When the client opens the app of the tool "show_note_card_embedded" with {"note_id": "n-1"}
    Then the app shows "Launch plan"
    And the app was refused "https://widgets.example.net/embed.js" by its content security policy
    And the upstream "https://cdn.example.com" received GET "/card.css" 1 time

  Scenario: The card follows the host's theme
    Given the app host uses the theme "dark"
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app matches the screenshot "features/screenshots/note-card-dark.png"
