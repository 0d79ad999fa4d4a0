"""Small helpers shared by the formatters: verdict names, CUDA locations, display paths."""
from __future__ import annotations

import os
from itertools import zip_longest

VERDICT_NAMES = {
    "race": "RACE", "deadlock": "DEADLOCK", "out-of-bounds": "OUT OF BOUNDS",
    "uninitialized-read": "UNINITIALIZED READ", "misaligned": "MISALIGNED ACCESS",
    "division-by-zero": "DIVISION BY ZERO", "nondeterministic-write": "NONDETERMINISTIC WRITE",
}

RULE_DESCRIPTIONS = {
    "race": "Two conflicting accesses by different threads (at least one a write, not both atomic) "
            "with no barrier ordering them.",
    "deadlock": "A barrier or warp collective whose participants can never all arrive.",
    "out-of-bounds": "An access outside the buffer, variable or state-space window it addresses.",
    "uninitialized-read": "A value read from never-written shared or local memory reaches an output, "
                          "a branch or an address.",
    "misaligned": "An access whose address is not a multiple of its size.",
    "division-by-zero": "An integer division or remainder by zero.",
    "nondeterministic-write": "Threads of one warp store different values to the same address in one "
                              "instruction: one of the writes lands, and which one is unspecified.",
    "unsupported": "The kernel left the structured class Volta decides (a data-dependent branch or "
                   "address, or an instruction without semantics); nothing is claimed past that point.",
}


def verdict_name(kind: str) -> str:
    return VERDICT_NAMES.get(kind, kind.upper().replace("-", " "))


def kernel_verdict(report) -> str:
    """CLEAN, UNSUPPORTED, or the finding kinds in upper case (`RACE`, `OUT OF BOUNDS, RACE`)."""
    if report.verdict == "clean":
        return "CLEAN"
    if report.verdict == "unsupported":
        return "UNSUPPORTED"
    return ", ".join(verdict_name(k) for k in report.kinds)


def split_cuda(cuda: str | None):
    """`"file.cu:17"` (or `"file.cu:17 (inlined at …)"`: the innermost frame) -> ("file.cu", 17)."""
    if not cuda:
        return None, None
    file, _, line = cuda.split(" (inlined at ", 1)[0].rpartition(":")
    try:
        return file, int(line)
    except ValueError:
        return cuda, None


def accesses(finding):
    """(ThreadId | None, Site | None) pairs: the threads of a finding with the instruction of each."""
    return list(zip_longest(finding.threads, finding.sites))


def counts(report) -> dict:
    out: dict = {}
    for f in report.findings:
        out[f.kind] = out.get(f.kind, 0) + 1
    return out


def display_path(path: str | None) -> str | None:
    """A path relative to the working directory when it lies below it, else as given."""
    if not path:
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def access_roles(f) -> list:
    """'write'/'read' labels for a race's two accesses when the message says `write-read race`."""
    n = max(len(f.threads), len(f.sites))
    first = f.message.split(" ", 1)[0]
    if f.kind == "race" and first.endswith(("-read", "-write")) and first.count("-") == 1 and n == 2:
        return first.split("-")
    return [""] * n
