"""`volta.kernelbench(problem, candidate, sizes=...)`: the Python call behind `volta kernelbench`.

    import volta
    r = volta.kernelbench("19_ReLU.py", "my_relu.py", sizes={"batch_size": 2})
    r.verdict, r.exit_code, r.sizes, r.bindings, r.counterexample
    print(r.report())            # the text `volta kernelbench` prints ("json", "sarif")

It calls the same library function as the command (`volta.kernelbench.check.check`) and formats with the
same report module, so a verdict here is the command's verdict with the same exit code. Bad input (a file
that does not exist, a size that is not positive) raises `volta.UsageError`; a problem or candidate outside
what is modelled is the verdict `unsupported`, not an exception.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from volta.api import Result, _check_fmt
from volta.cuda import check_arch
from volta.errors import UsageError
from volta.kernelbench.check import check

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class KernelbenchResult(Result):
    """`volta.kernelbench`: verdict equivalent | not-equivalent | findings | unsupported | unknown | rejected
    (docs/sandbox.md), at the sizes in `sizes` (name -> value checked); `ragged` is the result at ragged sizes
    when asked for."""

    sizes: dict = field(default_factory=dict)
    bindings: list = field(default_factory=list)     # candidate parameter -> reference parameter (how, shape)
    counterexample: Any = None                       # kernelbench.compare.Difference (not-equivalent)
    ragged: "KernelbenchResult | None" = None

    def report(self, fmt: str = "text") -> str:
        """text, json or sarif, as `volta kernelbench` prints them."""
        from volta.report import render

        _check_fmt(fmt, ("text", "json", "sarif"))
        return render(self.raw, fmt)


def _result(report) -> KernelbenchResult:
    c = report.comparison
    timings = {**report.seconds, "total": sum(report.seconds.values())}
    return KernelbenchResult(report.verdict, report.exit_code, list(report.findings), timings, report,
                             sizes={s.name: s.value for s in report.sizes}, bindings=list(report.bindings),
                             counterexample=c.difference if c is not None else None,
                             ragged=_result(report.ragged) if report.ragged is not None else None)


def kernelbench(problem: PathLike, candidate: PathLike, sizes: Mapping[str, Any] | None = None, *,
                ragged: bool = False, timeout_ms: int = 10_000, save_counterexample: PathLike | None = None,
                arch: str = "sm_80") -> KernelbenchResult:
    """Is `candidate`'s ModelNew (or Model) the `problem`'s Model, at `sizes` (others scaled down)?

    `sizes` maps a size global of the problem to an int or a tuple of ints (`--size`); `ragged` also checks
    at sizes no typical tile divides; `save_counterexample` names an .npz for a confirmed difference's inputs,
    shaped as `get_inputs()` returns them."""
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
    report = check(str(problem), str(candidate), chosen, ragged=ragged, timeout_ms=timeout_ms,
                   save_counterexample=str(save_counterexample) if save_counterexample else None,
                   arch=check_arch(arch))
    return _result(report)
