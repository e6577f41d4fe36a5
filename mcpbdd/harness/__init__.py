"""The two ways mcpbdd reaches a server: its handler path with a mock context, or a real client."""

from mcpbdd.harness.base import DEFAULT_TIMEOUT, Harness, RequestTimeout
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.harness.mock_context import MockContext, Recorder
from mcpbdd.model.kinds import CAPABILITIES

__all__ = [
    "CAPABILITIES",
    "DEFAULT_TIMEOUT",
    "ClientHarness",
    "ContextHarness",
    "Harness",
    "MockContext",
    "Recorder",
    "RequestTimeout",
]
