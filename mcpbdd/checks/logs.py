"""Assertions about the log messages a server sent during a call (`Outcome.log_messages`).

A client gets log messages only when it asks for them: on 2026-07-28 per request (the
`io.modelcontextprotocol/logLevel` key of the request's `_meta`), on 2025-11-25 with
`logging/setLevel`. So every check here needs the client to have asked (`Outcome.log_level`);
a check of a call that asked for none is a broken specification, whatever the era. And a
2026-07-28 server that sends log messages for a request that asked for none breaks the
protocol: every check here says so first, naming what arrived.

Failures list every message that arrived (level, text, logger), so a reader sees what the
server logged without re-running it.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import LOG_LEVELS, LogMessage, Outcome

ASK: str = 'Given the client asks for log messages from level "debug"'


def _messages(messages: Sequence[LogMessage]) -> str:
    if not messages:
        return "no log message"
    listed = "; ".join(str(message) for message in messages)
    return f"{len(messages)} log message{'s' if len(messages) != 1 else ''}: {listed}"


def _about(outcome: Outcome) -> str:
    return f"the call ({outcome.request_line}) sent {_messages(outcome.log_messages)}"


def _level(level: str) -> str:
    normal = level.strip().lower()
    if normal not in LOG_LEVELS:
        raise VacuousCheck(f"{level!r} is no log level: use one of {', '.join(LOG_LEVELS)}")
    return normal


def _severity(level: str) -> int:
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else len(LOG_LEVELS)


def unasked_messages(outcome: Outcome) -> None:
    """A 2026-07-28 server sent log messages for a request that asked for none: the protocol forbids it."""
    if outcome.log_level is None and outcome.log_messages and outcome.logs_opt_in:
        raise AssertionError(
            "The client asked for no log messages, and on 2026-07-28 a server must then send none (log messages "
            f"are a per-request opt-in, `_meta` key io.modelcontextprotocol/logLevel), but {_about(outcome)}"
        )


def _asked(outcome: Outcome, phrase: str) -> str:
    """The level the call asked from; a call that asked for none makes any log check a broken specification."""
    unasked_messages(outcome)
    if outcome.log_level is None:
        raise VacuousCheck(
            f"'{phrase}' checks the log messages of the call ({outcome.request_line}), but the client asked for "
            "none, and on 2026-07-28 a server sends none then, so this check says nothing about the server: put "
            f"'{ASK}' (or another level) before the call"
        )
    return outcome.log_level


def logged(outcome: Outcome, text: str, level: str, logger: str | None = None) -> None:
    """Some message of the call at `level` (from `logger`, when given) mentions `text`."""
    level = _level(level)
    asked = _asked(outcome, f'the server logged "{text}" at level "{level}"')
    if not text.strip():
        raise VacuousCheck(
            "The text the log message must mention is empty, and every text contains the empty text, so this "
            "checks nothing: write the words the log message must say"
        )
    if _severity(level) < _severity(asked):
        raise VacuousCheck(
            f"The client asked for log messages from level {asked!r}, so a message at {level!r} is never sent and "
            f"this can never pass: ask from {level!r} or below"
        )
    for message in outcome.log_messages:
        if message.level == level and text in message.text and (logger is None or message.logger == logger):
            return
    source = f" from the logger {logger!r}" if logger is not None else ""
    raise AssertionError(f"Expected a log message at {level!r}{source} mentioning {text!r}, but {_about(outcome)}")


def logged_nothing_above(outcome: Outcome, level: str) -> None:
    """No message of the call is more severe than `level`."""
    level = _level(level)
    _asked(outcome, f'the server logged nothing above "{level}"')
    if level == LOG_LEVELS[-1]:
        raise VacuousCheck(f"No level is above {level!r}, so this checks nothing: name a lower level")
    above = [message for message in outcome.log_messages if _severity(message.level) > _severity(level)]
    if above:
        listed = "; ".join(str(message) for message in above)
        raise AssertionError(f"Expected no log message above {level!r}, but some were: {listed}; {_about(outcome)}")


def no_log_message_mentions(outcomes: Sequence[Outcome], secret: str) -> None:
    """No log message of any call so far mentions `secret` (an API key, another tenant's data)."""
    if not secret.strip():
        raise VacuousCheck(
            "The text that must never appear is empty, and every text contains the empty text, so this checks "
            "nothing: write the secret no log message may mention"
        )
    for outcome in outcomes:
        unasked_messages(outcome)
    if not any(outcome.log_level is not None or outcome.log_messages for outcome in outcomes):
        raise VacuousCheck(
            f"No call so far asked for log messages, and on 2026-07-28 a server sends none then, so no log message "
            f"can mention {secret!r}: put '{ASK}' before the calls whose log messages this checks"
        )
    leaks = [
        (outcome, message)
        for outcome in outcomes
        for message in outcome.log_messages
        if secret in message.text or secret in (message.logger or "")
    ]
    if leaks:
        listed = "; ".join(f"{message} during {outcome.request_line}" for outcome, message in leaks)
        raise AssertionError(f"{len(leaks)} log message(s) mention {secret!r}: {listed}")


__all__ = ["ASK", "logged", "logged_nothing_above", "no_log_message_mentions", "unasked_messages"]
