"""The candidate's code runs in a confined worker process; the verdict is decided in Volta's (docs/sandbox.md).

`process.Worker` forks and confines the worker and watches it, `guard` is the audit hook inside it, `wire` the
restricted format of what comes back.
"""
