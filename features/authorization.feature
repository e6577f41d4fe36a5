@harness.client
Feature: Only signed-in users reach the notes service, and only with the permissions they were given
  Deployed as a web service, the notes server trusts the company's sign-in service: every
  request carries an access token the sign-in service issued for this service, for one user
  of one company, for a limited time, with the permissions that user was granted. Anyone can
  read their company's notes once signed in; writing a note needs "notes:write", deleting one
  "notes:delete". A request without such a token is turned away before it reaches any note,
  and the answer tells the client where to sign in.

  In these scenarios the sign-in service is a stand-in that mcpbdd runs, and the notes
  service checks its tokens with the same code it runs in production.

  Background:
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} --auth jwks"
    And the server requires a token
    And the user "alice" of tenant "acme" with the scopes "notes:write"
    And the user "bob" of tenant "acme"

  Scenario: A signed-in user works with the company's notes
    When "alice" calls "create_note" with {"title": "Launch plan", "body": "Friday"}
    Then the call succeeds
    When "bob" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 1, "notes": [{"title": "Launch plan", "author": "alice"}]}
      """

  Scenario: A request without a token is told where to sign in
    When the client calls "list_notes" without a token
    Then the call is refused as unauthenticated

  Scenario: The service says who issues its tokens and which permissions it knows
    Then the server describes its protection with:
      """
      {"resource": "#string", "scopes_supported": ["notes:delete", "notes:write"],
       "bearer_methods_supported": ["header"]}
      """

  Scenario: Writing needs the permission to write
    When "bob" calls "create_note" with {"title": "Salaries", "body": "42k"}
    Then the call is refused for lack of the scope "notes:write"
    When "bob" is granted the scope "notes:write" and retries
    Then the call succeeds

  Scenario: Deleting needs its own permission, even for a writer
    When "alice" calls "delete_note" with {"note_id": "n-1"}
    Then the call is refused for lack of the scope "notes:delete"

  Scenario: A token stops working when it expires
    Given the token of "alice" expires in 5 minutes
    When "alice" calls "list_notes"
    Then the call succeeds
    When 6 minutes pass
    And "alice" calls "list_notes"
    Then the call is refused as unauthenticated

  Scenario: An expired token is refused
    Given the token of "alice" has expired
    When "alice" calls "list_notes"
    Then the call is refused as unauthenticated

  Scenario: Clocks may disagree a little, not a lot
    Given the token of "alice" expired 10 seconds ago
    And the token of "bob" expired 2 minutes ago
    When "alice" calls "list_notes"
    Then the call succeeds
    When "bob" calls "list_notes"
    Then the call is refused as unauthenticated

  Scenario Outline: A token for another service is refused, however alike its address
    Given the token of "alice" is for the audience "<audience>"
    When "alice" calls "list_notes"
    Then the call is refused as unauthenticated

    Examples:
      | audience                      |
      | https://api.example.test      |
      | {resource}.evil               |
      | {resource}/                   |
      | {resource}x                   |

  Scenario: A token from another sign-in service is refused
    Given the token of "alice" was issued by "https://login.evil.example"
    When "alice" calls "list_notes"
    Then the call is refused as unauthenticated

  Scenario Outline: A forged token is refused
    Given the token of "alice" <forgery>
    When "alice" calls "list_notes"
    Then the call is refused as unauthenticated

    Examples:
      | forgery                                        |
      | is signed by an unknown key                    |
      | is unsigned                                    |
      | is signed with the public key as an HMAC secret |
      | is 10 kilobytes long                           |
