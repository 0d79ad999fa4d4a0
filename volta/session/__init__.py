"""The command drivers: one orchestration per command over the machine and the deciders, on a prepared spec.

`races.analyze` runs `volta races` (one launch or a launch sequence over the whole grid, structured; the
concrete trials of volta/exec/drivers/trials.py when data steers it) and returns a `RacesResult`; `replay.replay` runs
`volta run` (one launch on concrete inputs) and returns a `RunResult`; `check.decide` runs `volta check` (over the
reals, sampled bits or a bit proof, as its `CheckOptions` say) and returns a `CheckResult`. The CLI (volta/cli)
and the Python API (volta/api.py) both call these and hand out these results; reports (volta/report) present
them (`result.py`: how a result renders without this package importing its presenter).
"""
