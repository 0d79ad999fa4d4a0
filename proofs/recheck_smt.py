"""Re-check every .smt2 obligation in a directory with two independent solvers.

cvc5: its Python package's base API (InputParser), with cylindrical algebraic coverings for
nonlinear real arithmetic. z3: the `z3` command-line binary when one is on PATH (the z3-solver
wheel ships it), else `z3.Solver().from_file` through volta.symbolic.z3bridge.check_smt_file.
An obligation is written as "some defined input makes the outputs differ", so `unsat` on both
means both solvers agree the equality holds.

Usage: python proofs/recheck_smt.py [--expect unsat|sat] DIR
  exit 0 iff the two solvers agree on every file (and, with --expect, both give that answer)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 60


@dataclass(frozen=True)
class Result:
    path: Path
    cvc5: str
    z3: str

    @property
    def agree(self) -> bool:
        return self.cvc5 == self.z3 and self.cvc5 in ("sat", "unsat")


def run_cvc5(path: Path) -> str:
    import cvc5

    solver = cvc5.Solver()
    solver.setOption("nl-cov", "true")
    solver.setOption("tlimit-per", str(TIMEOUT_S * 1000))
    symbols = cvc5.SymbolManager(solver)
    parser = cvc5.InputParser(solver, symbols)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, str(path))
    answers = []
    try:
        while True:
            cmd = parser.nextCommand()
            if cmd.isNull():
                break
            out = cmd.invoke(solver, symbols).strip()
            if out:
                answers.append(out)
    except RuntimeError as e:   # cvc5 reports parse/logic errors as RuntimeError
        return f"error: {e}"
    return answers[-1] if answers else "no answer"


def z3_binary() -> str | None:
    """The z3 executable of this Python's environment (the z3-solver wheel's), else one on PATH.

    The environment's own binary comes first: a PATH entry may be a shim (pyenv) costing a shell per call.
    """
    here = Path(sys.executable).with_name("z3")
    return str(here) if here.exists() else shutil.which("z3")


def run_z3(path: Path) -> str:
    exe = z3_binary()
    if exe:
        done = subprocess.run([exe, f"-T:{TIMEOUT_S}", str(path)], capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        return lines[-1] if lines else f"error: {done.stderr.strip()}"
    from volta.symbolic.z3bridge import check_smt_file
    return check_smt_file(path, TIMEOUT_S * 1000)


def recheck(directory: Path) -> list[Result]:
    """Both solvers on every obligation; the z3 processes run in parallel with cvc5 (in-process)."""
    from concurrent.futures import ThreadPoolExecutor

    paths = sorted(Path(directory).glob("*.smt2"))
    with ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
        z3_answers = pool.map(run_z3, paths)
        cvc5_answers = [run_cvc5(p) for p in paths]
        return [Result(p, c, z) for p, c, z in zip(paths, cvc5_answers, z3_answers)]


def main(argv: list[str]) -> int:
    expect = None
    if len(argv) == 3 and argv[0] == "--expect" and argv[1] in ("sat", "unsat"):
        expect, argv = argv[1], argv[2:]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    results = recheck(Path(argv[0]))
    for r in results:
        print(f"{'agree   ' if r.agree else 'DISAGREE'} cvc5={r.cvc5:8} z3={r.z3:8} {r.path.name}")
    bad = sum(not r.agree for r in results)
    print(f"{len(results) - bad}/{len(results)} obligations: both solvers agree")
    if expect is not None:
        off = sum(r.cvc5 != expect for r in results if r.agree)
        print(f"{len(results) - bad - off}/{len(results)} obligations: both solvers say {expect}")
        bad += off
    if not results:
        print("no .smt2 obligations found", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
