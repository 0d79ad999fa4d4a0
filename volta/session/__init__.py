"""The command drivers: one orchestration per command over the machine and the deciders.

`races` runs `volta races` (one launch or a launch sequence over the whole grid, structured; the concrete
trials of volta/exec/drivers/trials.py when data steers it) and returns a `RacesResult`; `replay` runs `volta run` (one
launch on concrete inputs) and returns a `RunResult`. The CLI (volta/cli) and the Python API (volta/api.py) both call
these; reports (volta/report) present their results.
"""
