"""The slow tier: tests that start processes (behave, `mcpbdd run`, servers over stdio or HTTP, fork servers).

`make test-fast` leaves this folder out; `make pytest` (and so `make test`) runs it with the rest. A package (like
tests/storage/) so that a module here may share its name with the in-process half at tests/, e.g. test_cli.py;
tests/no_processes.py fails any test outside this folder that starts a process.
"""
