"""behave hooks for this project's own specifications: mcpbdd's, installed with one line."""

from mcpbdd.behave import *
