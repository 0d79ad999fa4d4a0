"""Wall time of `volta kernelbench` over the example corpus (examples/kernelbench/*/), one candidate at a time,
to measure what the later calls of forward (volta/kernelbench/calls.py) add.

    python benchmarks/kernelbench_calls.py                 # this checkout
    PYTHONPATH=/path/to/old/checkout python /path/to/old/checkout/benchmarks/kernelbench_calls.py ROOT

Prints one line per candidate (seconds, verdict) and the total."""
import sys
import time
import tomllib
from pathlib import Path

from volta.kernelbench.check import check


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    total = 0.0
    for expect in sorted((root / "examples" / "kernelbench").glob("*/expect.toml")):
        for name, want in tomllib.loads(expect.read_text()).items():
            start = time.perf_counter()
            report = check(str(expect.parent / "problem.py"), str(expect.parent / f"{name}.py"), want.get("sizes"))
            seconds = time.perf_counter() - start
            total += seconds
            later = report.seconds.get("later_calls")
            print(f"{seconds:7.2f} s  {report.verdict:15} {expect.parent.name}/{name}"
                  + (f"  (later calls {later:.2f} s)" if later is not None else ""), flush=True)
    print(f"total {total:.1f} s")


if __name__ == "__main__":
    main()
