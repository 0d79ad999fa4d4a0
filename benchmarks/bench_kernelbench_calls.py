"""Wall time of `volta kernelbench` over the example corpus (examples/kernelbench/*/), one candidate at a time,
to measure what the later calls of forward (volta/kernelbench/calls.py) add.

    python benchmarks/bench_kernelbench_calls.py            # this checkout's volta and examples
    python benchmarks/bench_kernelbench_calls.py ROOT       # ROOT's examples with ROOT's volta (another checkout)
    python benchmarks/bench_kernelbench_calls.py . --skip eq_erf_float4     # leave out candidates naming WORD

Prints one line per candidate (seconds, verdict, and the seconds the later calls took) and the totals."""
import sys
import time
import tomllib
from pathlib import Path

ARGS = sys.argv[1:]
SKIP = [ARGS[i + 1] for i, a in enumerate(ARGS[:-1]) if a == "--skip"]
ROOT = Path(ARGS[0]).resolve() if ARGS and ARGS[0] != "--skip" else Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from volta.kernelbench.check import check  # noqa: E402  (the checkout named on the command line)


def main() -> None:
    total = later_total = 0.0
    for expect in sorted((ROOT / "examples" / "kernelbench").glob("*/expect.toml")):
        for name, want in tomllib.loads(expect.read_text()).items():
            if any(word in f"{expect.parent.name}/{name}" for word in SKIP):
                continue
            start = time.perf_counter()
            report = check(str(expect.parent / "problem.py"), str(expect.parent / f"{name}.py"), want.get("sizes"))
            seconds = time.perf_counter() - start
            total += seconds
            later = report.seconds.get("later_calls")
            later_total += later or 0.0
            print(f"{seconds:7.2f} s  {report.verdict:15} {expect.parent.name}/{name}"
                  + (f"  (later calls {later:.2f} s)" if later is not None else ""), flush=True)
    print(f"total {total:.1f} s, of which later calls {later_total:.1f} s")


if __name__ == "__main__":
    main()
