"""`volta.kernelbench(problem, candidate, sizes=...)`: the Python call behind `volta kernelbench`.

    import volta
    r = volta.kernelbench("19_ReLU.py", "my_relu.py", sizes={"batch_size": 2})
    r.verdict, r.exit_code, r.sizes, r.bindings, r.counterexample
    print(r.report())            # the text `volta kernelbench` prints ("json", "sarif")

It runs the same confined worker as the command (`volta.kernelbench.isolation.confined`: the whole
`volta.kernelbench.check.check` in a separate, limited process, docs/sandbox.md) and returns what the command
prints, so a verdict here is the command's verdict with the same exit code; `raw` is the report as JSON data
(SCHEMA.md), and a candidate that ends or attacks its worker is `rejected`. Bad input (a file
that does not exist, a size that is not positive) raises `volta.UsageError`; a problem or candidate outside
what is modelled is the verdict `unsupported`, not an exception.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Mapping, Union

from volta.api import Result, _check_fmt
from volta.cuda import check_arch
from volta.errors import UsageError
from volta.exec import limits
from volta.kernelbench.check import CheckOptions
from volta.kernelbench.isolation import confined

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class KernelbenchResult(Result):
    """`volta.kernelbench`: verdict equivalent | not-equivalent | findings | precision | within-tolerance |
    unsupported | unknown | rejected, at the sizes in `sizes` (name -> value checked); `ragged` is the result at
    ragged sizes when asked for. Findings, bindings and the counterexample are the JSON report's objects."""

    sizes: dict = field(default_factory=dict)
    bindings: list = field(default_factory=list)     # {"candidate", "reference", "how", "shape"}
    counterexample: Any = None                       # .output, .index, .ref_value, .cand_value, .inputs, .file
    ragged: "KernelbenchResult | None" = None
    rendered: dict = field(default_factory=dict, repr=False)

    def report(self, fmt: str = "text") -> str:
        """text, json, sarif or junit, as `volta kernelbench` prints them."""
        _check_fmt(fmt, ("text", "json", "sarif", "junit"))
        return self.rendered[fmt]


def _result(report: dict, exit_code: int, rendered: dict) -> KernelbenchResult:
    stats = {k[:-len("_seconds")]: v for k, v in report["stats"].items() if k.endswith("_seconds")}
    cex = report.get("counterexample")
    ragged = report.get("ragged")
    return KernelbenchResult(report["verdict"], exit_code, list(report["findings"]) + list(report["hack_findings"]),
                             {**stats, "total": sum(stats.values())}, report,
                             sizes={s["name"]: tuple(s["value"]) if isinstance(s["value"], list) else s["value"]
                                    for s in report["sizes"]},
                             bindings=list(report["parameters"]),
                             counterexample=SimpleNamespace(**cex) if cex else None,
                             ragged=_result(ragged, confined.EXIT_OF[ragged["verdict"]], {}) if ragged else None,
                             rendered=rendered)


def kernelbench(problem: PathLike, candidate: PathLike, sizes: Mapping[str, Any] | None = None, *,
                ragged: bool = False, timeout_ms: int = 10_000, save_counterexample: PathLike | None = None,
                arch: str = "sm_80", require_kernel: bool = False, eval_mode: bool = False,
                tolerance: tuple | None = None, timeout: float | None = None) -> KernelbenchResult:
    """Is `candidate`'s ModelNew (or Model) the `problem`'s Model, at `sizes` (others scaled down)?

    `sizes` maps a size global of the problem to an int or a tuple of ints (`--size`); `ragged` also checks
    at sizes no typical tile divides; `save_counterexample` names an .npz for a confirmed difference's inputs,
    shaped as `get_inputs()` returns them; `require_kernel` makes an output element no custom kernel took part
    in a finding; `eval_mode` checks both models in eval mode (`--eval`); `tolerance` (atol, rtol) evaluates a
    candidate that computes through narrower float formats (verdict `precision` or `within-tolerance`,
    `--atol/--rtol`). `timeout` (seconds, `--timeout`) bounds the whole call, workers and deciding: what is left
    undecided is `unknown`, reported with the stage that ran out; without it the call keeps any deadline it is
    called under (a `volta batch` job's), else each worker's own 30-minute limit."""
    for path, what in ((problem, "problem"), (candidate, "candidate")):
        if not os.path.isfile(path):
            raise UsageError(f"no such {what} file: {path}")
    chosen = {}
    for name, value in (sizes or {}).items():
        numbers = value if isinstance(value, (tuple, list)) else (value,)
        if not numbers or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in numbers):
            raise UsageError(f"size {name}={value!r}: expected a positive integer (or a tuple of them)")
        chosen[str(name)] = tuple(numbers) if isinstance(value, (tuple, list)) else value
    if save_counterexample is not None and not str(save_counterexample).endswith(".npz"):
        raise UsageError(f"save_counterexample={save_counterexample}: the file is a numpy archive; name it FILE.npz")
    options = CheckOptions(ragged=bool(ragged), timeout_ms=timeout_ms, arch=check_arch(arch),
                           require_kernel=bool(require_kernel), eval_mode=bool(eval_mode),
                           tolerance=tuple(tolerance) if tolerance is not None else None)
    numeric = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
    if timeout is not None and not (numeric and timeout > 0):
        raise UsageError(f"timeout={timeout!r}: expected a positive number of seconds")
    outer = limits.current()
    bound = contextlib.nullcontext()
    if timeout is not None and (outer.deadline is None or time.monotonic() + timeout < outer.deadline):
        bound = limits.using(max_memory=outer.max_memory, timeout=timeout, progress=outer.progress)
    with bound:
        answer = confined.run(str(problem), str(candidate), chosen, options,
                              save_counterexample=str(save_counterexample) if save_counterexample else None)
    return _result(answer.report, answer.exit_code, answer.rendered)
