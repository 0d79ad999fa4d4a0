"""Each command's exit codes, as its `--help` lists them (the epilog); README's table says the same.

One place for the texts so `volta X --help` and the code that returns the codes are read side by side: the
verdict → code maps live with the results (volta/session/races.py EXIT_CODES, volta/report/*), these lines describe
them for a user. Click would re-wrap an epilog; the leading `\\b` keeps one code per line.
"""
from __future__ import annotations

USAGE = "2  usage or parse error (one paragraph on stderr, file:line:col where it applies)"
INTERNAL = "3  also: an internal error (a bug in Volta; nothing is claimed)"

_CODES = {
    "check": ["0  EQUIVALENT (or BIT-IDENTICAL, NO BIT DIFFERENCE FOUND, WITHIN TOLERANCE)",
              "1  NOT EQUIVALENT (BITS DIFFER), or findings: race, deadlock, out of bounds, uninitialized read",
              USAGE,
              "3  UNSUPPORTED or UNKNOWN (nothing is claimed), or EQUIVALENT ON THESE INPUTS (not a proof)"],
    "races": ["0  CLEAN for every input",
              "1  findings: race, deadlock, out of bounds, uninitialized read, nondeterministic write",
              USAGE,
              "3  UNSUPPORTED or UNKNOWN (nothing is claimed), or NO FINDING ON THESE INPUTS (not a proof)"],
    "run": ["0  clean on these inputs",
            "1  findings on these inputs (race, deadlock, out of bounds, uninitialized read)",
            "2  usage or parse error: an input array naming no buffer, a read buffer with none, a dtype/size "
            "mismatch",
            "3  UNSUPPORTED (an instruction without semantics) or UNKNOWN (--timeout ran out)"],
    "parse": ["0  every file parsed", "2  a file failed to parse (the others are still reported)"],
    "mma": ["0  the result words", USAGE],
    "classes": ["0  every configuration analyzed", USAGE, "3  a configuration could not be analyzed"],
    "triton": ["0  EQUIVALENT to --ref, or CLEAN without one",
               "1  NOT EQUIVALENT, or findings in a launch (race, deadlock, out of bounds, uninitialized read)",
               USAGE,
               "3  UNSUPPORTED or UNKNOWN (nothing is claimed)"],
    "kernelbench": ["0  EQUIVALENT to the PyTorch reference (or, with --atol/--rtol, EQUIVALENT WITHIN TOLERANCE)",
                    "1  NOT EQUIVALENT (also at a --ragged size or on a later call: OUTPUT ALIASED), or findings:",
                    "   in the candidate's launches (race, out of bounds, uninitialized read), of what forward did",
                    "   (INPUT WRITTEN, UNINITIALIZED OUTPUT/READ, STREAM RACE, HOST THREAD; NO CUSTOM KERNEL with",
                    "   --require-kernel), or PRECISION LOSS (narrower float formats than the reference), or",
                    "   REJECTED (its code ended its worker without a result or reached for the verdict:",
                    "   docs/sandbox.md)",
                    USAGE,
                    "3  UNSUPPORTED, UNKNOWN or a candidate that could not be built or run (nothing is claimed)"],
    "batch": ["0  every job exited 0",
              "1  a job found something (not equivalent, findings, rejected), none was bad input",
              "2  a job was bad input, or the jobs file is",
              "3  otherwise: a job was unsupported, unknown, past its --timeout or --memory-mb"],
}


def epilog(command: str) -> str:
    """The `Exit codes:` block of `volta COMMAND --help`."""
    lines = _CODES[command] + ([] if command == "batch" else [INTERNAL])
    return "\b\nExit codes:\n" + "\n".join("  " + line for line in lines)
