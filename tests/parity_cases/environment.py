"""The same one-line installation a project uses."""

from mcpbdd.behave import *
