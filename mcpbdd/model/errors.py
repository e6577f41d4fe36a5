"""The errors every layer raises: what went wrong with a specification or its set-up, not with the server.

They live below everything that raises them (targets, the harnesses, the doubles hand-over, the World,
the steps), so no layer imports a higher one to say "broken". `Broken` is the root of the set-up
errors; a report shows it as *broken*, where an expectation the server did not meet is *failed*.
"""

from __future__ import annotations

__all__ = ["Broken", "DoublesNotTaken", "NoCallYet", "NoServer", "ServerCannotStart", "TargetError", "VacuousCheck"]


class Broken(AssertionError):
    """Not a verdict on the server: the specification or its set-up is wrong.

    A malformed doc string, an unknown user or outcome word, a bad setting, a check that would
    check nothing, a server that cannot start. Reports show it as *broken*, and an expectation
    the server did not meet as *failed* (Allure's convention), so a reviewer knows whom to ask:
    the author of the specification, or the server's. It is an AssertionError so that behave
    prints its message without a traceback, as for any failed step.
    """


class TargetError(ValueError):
    """A server target that cannot be parsed or loaded; the message says which and why."""


class ServerCannotStart(Broken, ConnectionError):
    """A server that could not be loaded or started, or that ended before its first answer.

    The set-up is wrong, not the server's answers, so a report shows it as broken. It is an
    AssertionError (behave prints the message, no traceback) and a ConnectionError (what code
    that opens a session already expects). `cannot_load` marks a target that can never work as
    configured (its module does not import, its program does not exist): no scenario can use
    it, so `mcpbdd run` stops before the first one and plain behave stops after it.
    """

    def __init__(
        self, why: str, *, target: str | None = None, command: str | None = None, cannot_load: bool = False
    ) -> None:
        self.why = why
        self.target = target
        self.cannot_load = cannot_load
        named = f'The server "{target}"' if target else "The server"
        run = f" (command: {command})" if command else ""
        super().__init__(f"{named}{run} cannot start: {why}")


class NoServer(Broken, TargetError):
    """No server to test (none configured or named): the set-up is wrong, so broken; still a TargetError."""


class NoCallYet(Broken):
    """An outcome step ran before any call was made (the specification is wrong: broken, not failed)."""


class DoublesNotTaken(Broken):
    """A storage or clock step against a server that never took the scenario's doubles (it would check nothing).

    The set-up is wrong, not the server's answers: reported as broken.
    """


class VacuousCheck(Broken):
    """A check that would pass while checking nothing; it fails instead, so a green always means something.

    Every check raises it (the checks package, and the model's own guards), so it lives here, below them all.
    """
