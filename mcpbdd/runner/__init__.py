"""The run's machinery, apart from the command line that starts it (`mcpbdd.cli` parses and dispatches here).

`mcpbdd.runner.run` runs the specifications as `mcpbdd run` does: planned by feature file (`plan`, over
`passes` of several harnesses, balanced by `timings`), behave processes started and watched (`workers`,
`behave_argv`, `formatters`, `progress`), one run per reports folder (`run_lock`), the scenarios no process
reported (`lost`), the outputs derived once they end (`finish`, `rerun`) and the summary (`run_summary`) with
the exit statuses CI trusts (`exits`).
"""

__all__: list[str] = []
