"""A KernelBench candidate's whole check runs in a confined worker process (docs/sandbox.md).

`process.Worker` forks and confines the worker and watches it, `guard` is the audit hook and the snapshot of
Volta's code inside it, `confined` runs `check` there and validates the JSON that comes back.
"""
