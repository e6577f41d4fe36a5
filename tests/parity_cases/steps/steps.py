"""The same one-line installation a project uses."""

from mcpbdd.steps import *  # noqa: F403
