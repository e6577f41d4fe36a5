"""Server processes: starting them (plain, forked from the fork server, or a warm spare), stopping them.

`spawn` starts a stdio server and picks how; `forkserver` with `fork_child`, `fork_client`,
`fork_launcher`, `fork_pages` and `fork_fitness` makes a fresh process in tens of milliseconds; `spare` keeps a
plain process warm; `http_process` runs an HTTP server from a command; `process_options` are the
settings they share. Nothing here knows of scenarios: the World asks for a process and gets one.
"""

__all__: list[str] = []  # a namespace for its modules: import them by name
