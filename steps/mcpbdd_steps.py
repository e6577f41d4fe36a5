"""The mcpbdd step vocabulary, installed with one line."""

from mcpbdd.steps import *
