Feature: Every app step fails when it should, with a message that says why
  Each scenario below is expected to FAIL; tests/spawning/test_behave_apps.py checks the messages. The note
  card is the bundled notes server's (tests/behave_cases/features/failing_app_views.feature has
  views broken on purpose).

  Background:
    Given the user "alice" of tenant "acme"
    And the storage of tenant "acme" holds:
      | key       | value                                                                                                                  |
      | notes/n-1 | {"id": "n-1", "title": "Launch plan", "body": "Friday", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: shows, but the text is not there
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app shows "Groceries"

  Scenario: no content security rule broken, but a script from an unlisted domain was refused
    When the client opens the app of the tool "show_note_card_embedded" with {"note_id": "n-1"}
    Then the app breaks no content security rule

  Scenario: matches the screenshot, but the view looks different
    Given the app host uses the theme "light"
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app matches the screenshot "features/screenshots/note-card-dark.png"

  Scenario: matches a screenshot that was never recorded
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app matches the screenshot "tests/behave_cases/no-such-screenshot.png"

  Scenario: called the tool, but nothing was clicked
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app called the tool "pin_note"

  Scenario: asked to open a link it did not ask for
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app asked to open "https://notes.example.com/n/n-1"

  Scenario: clicks a control the view does not have
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    And the user clicks "Archive" in the app

  Scenario: opens the app of a tool that has none
    When the client opens the app of the tool "get_note" with {"note_id": "n-1"}

  Scenario: matches a screenshot above the project
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app matches the screenshot "../../outside-the-project.png"

  Scenario: matches a screenshot at an absolute path
    When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}
    Then the app matches the screenshot "/tmp/mcpbdd-absolute-screenshot.png"
