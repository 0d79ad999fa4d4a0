"""Small helpers shared by the formatters: verdict names, CUDA locations, display paths."""
from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import zip_longest

from volta import cuda

VERDICT_NAMES = {
    "race": "RACE", "deadlock": "DEADLOCK", "out-of-bounds": "OUT OF BOUNDS",
    "uninitialized-read": "UNINITIALIZED READ", "misaligned": "MISALIGNED ACCESS",
    "division-by-zero": "DIVISION BY ZERO", "nondeterministic-write": "NONDETERMINISTIC WRITE",
    "benign-race": "BENIGN RACE", "benign-read-race": "BENIGN READ RACE", "ordering-race": "ORDERING RACE",
    "nondeterministic-bits": "NONDETERMINISTIC BITS",
}

# One per finding kind (the SARIF rule's description): what it is and why CUDA does or does not define it
# (docs/races.md is the longer form).
RULE_DESCRIPTIONS = {
    "race": "Two conflicting accesses by different threads (at least one a write) that are not morally strong "
            "and that no barrier, fence or release/acquire pattern orders: a data race, which the PTX memory "
            "model leaves undefined (undefined behaviour in CUDA).",
    "ordering-race": "Conflicting volatile/relaxed accesses (or one of them atomic) that nothing orders. They are "
                     "morally strong, so the PTX memory model defines the behaviour (no data race), but not the "
                     "outcome: the value read, or the value that remains, depends on the schedule. A fence between "
                     "payload and flag on both sides (or st.release/ld.acquire at a scope covering both threads), "
                     "or __syncwarp() within a warp, orders them.",
    "deadlock": "A barrier or warp collective whose participants can never all arrive.",
    "out-of-bounds": "An access outside the buffer, variable or state-space window it addresses.",
    "uninitialized-read": "A value read from never-written shared or local memory reaches an output, "
                          "a branch or an address.",
    "misaligned": "An access whose address is not a multiple of its size.",
    "division-by-zero": "An integer division or remainder by zero.",
    "nondeterministic-write": "Threads of one warp store different values to the same address in one "
                              "instruction: CUDA defines that one of the writes lands, not which one (equal "
                              "values are not reported).",
    "benign-race": "Threads of different warps or blocks write the same address with no ordering, every write "
                   "storing the same value: a data race in the PTX memory model (undefined), reported apart "
                   "because the stored value cannot depend on the order.",
    "benign-read-race": "A read races only with writes that store the value already there: a data race in the PTX "
                        "memory model (undefined), reported apart because the read gets the same value in any "
                        "order.",
    "nondeterministic-bits": "Several threads store values equal over the reals to one slot (replicated warps of "
                             "a Triton layout, or the lanes of one store), but on a concrete input their bits "
                             "differ (an fma-contracted or reordered sum): the output bits depend on which write "
                             "lands. Verdicts over the reals stand.",
    "unsupported": "The kernel left the structured class Volta decides (a data-dependent branch or "
                   "address, or an instruction without semantics); nothing is claimed past that point.",
    "unknown": "--timeout ran out before the run ended; nothing is claimed past the point it reached.",
}


def verdict_name(kind: str) -> str:
    return VERDICT_NAMES.get(kind, kind.upper().replace("-", " "))


def kernel_verdict(report) -> str:
    """CLEAN, UNSUPPORTED, UNKNOWN (--timeout), or the finding kinds in upper case (`RACE`, `OUT OF BOUNDS, RACE`)."""
    if report.verdict == "clean":
        return "CLEAN"
    if report.verdict == "unsupported":
        return "UNSUPPORTED"
    if report.verdict == "unknown":
        return "UNKNOWN"
    if report.verdict == "clean-for-inputs":
        return "NO FINDING ON THESE INPUTS"
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
    """A path relative to the working directory when it lies below it, else as given; the PTX nvcc made of the
    user's .cu file is named after that file (`kernel.cu→sm_80.ptx`), not by its hashed cache path."""
    if not path:
        return path
    compiled = cuda.shown_name(path)
    if compiled is not None:
        return compiled
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


# ---- names, source lines and grouping (presentation of findings) ---------------------------------------------

import functools
import re
import shutil
import subprocess

from volta.ir.program import length_prefixed, source_names

_BUILTIN = {"v": "void", "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char", "s": "short",
            "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long", "m": "unsigned long",
            "x": "long long", "y": "unsigned long long", "f": "float", "d": "double", "DF16_": "_Float16"}


def _params(s: str):
    """Itanium parameter types, the subset nvcc emits for kernels (builtins, P, K, R, S_/S0_ substitutions)."""
    out, subs, i = [], [], 0
    while i < len(s):
        quals = []
        while i < len(s) and s[i] in "PKR":
            quals.append(s[i])
            i += 1
        m = re.match(r"S(\d*)_", s[i:])
        if m:
            k = int(m[1]) + 1 if m[1] else 0
            if k >= len(subs):
                return None
            base = subs[k]
            i += len(m[0])
        else:
            key = next((k for k in sorted(_BUILTIN, key=len, reverse=True) if s.startswith(k, i)), None)
            if key is None:
                name, j = length_prefixed(s, i)
                if not name:
                    return None
                base, i = name, j
                subs.append(base)
            else:
                base = _BUILTIN[key]
                i += len(key)
        for q in reversed(quals):
            base = {"P": f"{base}*", "K": f"{base} const", "R": f"{base}&"}[q]
            subs.append(base)
        out.append(base)
    return "" if out == ["void"] else ", ".join(out)


@functools.lru_cache(maxsize=1024)
def demangle(name: str | None) -> str | None:
    """`_ZZ18reduce_tree_nosyncE5sdata` -> `reduce_tree_nosync()::sdata` (a function-local static, the names nvcc
    gives `__shared__` variables); other `_Z` names through c++filt when it is on PATH; anything else unchanged."""
    if not name or not name.startswith("_Z"):
        return name
    m = re.fullmatch(r"_ZZ(.+)E(\d+)(\w+?)(?:_\d+)?", name)
    if m and len(m[3]) == int(m[2]):
        fn, rest = length_prefixed(m[1], 0)
        if fn:
            params = m[1][rest:]
            args = "" if not params else _params(params)
            if args is None:
                full = _cxxfilt("_Z" + m[1])
                return f"{full}::{m[3]}" if full else f"{fn}(…)::{m[3]}"
            return f"{fn}({args})::{m[3]}"
    return _cxxfilt(name) or name


def _cxxfilt(name: str) -> str | None:
    tool = shutil.which("c++filt")
    if tool is None:
        return None
    try:
        out = subprocess.run([tool, name], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out and out != name else None


def kernel_title(name: str | None) -> str | None:
    """A kernel's name as the user reads it in the .cu file (`softmax` for `_Z7softmaxPfi`, which `--kernel`
    also takes); any other name unchanged."""
    short = source_names(name) if name else ()
    return short[0] if short else name


def demangle_text(text: str | None) -> str | None:
    """Every mangled name in a message, demangled."""
    if not text:
        return text
    return re.sub(r"\b_Z\w+", lambda m: demangle(m[0]), text)


def resolve_cuda(file: str | None, ptx: str | None) -> str | None:
    """The CUDA file of a `.loc`, by one rule for every report (text, JSON, SARIF, check and races alike): the
    file the user gave — the .cu they passed when the PTX was compiled from it, else the file of that name beside
    the PTX they passed — relative to the working directory when below it; else the path as nvcc wrote it.
    nvcc records absolute paths, which go stale when a tree moves — or, worse, still point into the tree a
    clone was made from, so the user's copy comes first."""
    if not file or not ptx:
        return display_path(file)
    given = cuda.compiled_from(ptx)
    if given is not None and os.path.basename(given) == os.path.basename(file):
        return display_path(given)
    beside = os.path.join(os.path.dirname(ptx), os.path.basename(file))
    return display_path(beside if os.path.exists(beside) else file)


def cuda_site(site):
    """(resolved CUDA file, line) of a Site, or (None, None)."""
    if site is None:
        return None, None
    file, line = split_cuda(site.cuda)
    return resolve_cuda(file, site.ptx), line


@functools.lru_cache(maxsize=256)
def _lines_of(path: str):
    try:
        with open(path, errors="replace") as fh:
            return tuple(fh.read().splitlines())
    except OSError:
        return None


def source_excerpt(file: str | None, line: int | None, indent: str = "    ") -> list:
    """The source line with a caret under its first character, when the file is readable; else []."""
    if not file or not line:
        return []
    lines = _lines_of(file)
    if not lines or not 1 <= line <= len(lines):
        return []
    text = lines[line - 1].rstrip().expandtabs(4)
    if not text.strip():
        return []
    pad = len(text) - len(text.lstrip())
    width = len(str(line))
    return [f"{indent}{line} | {text}", f"{indent}{' ' * width} | {' ' * pad}^"]


@dataclass
class FindingGroup:
    """Findings of one kind at one source site: `count` instances, `example` the first of them."""

    kind: str
    example: object  # Finding
    members: list
    site: tuple  # ((file, line), …) per access: the CUDA line, or the PTX line without .loc

    @property
    def count(self) -> int:
        return len(self.members)

    @property
    def buffers(self) -> list:
        """The distinct buffers or variables of the members, demangled, in first-seen order."""
        out = []
        for f in self.members:
            name = demangle(f.buffer) if f.buffer is not None else None
            if name is not None and name not in out:
                out.append(name)
        return out

    @property
    def where(self) -> str:
        seen = []
        for file, line in self.site:
            text = f"{display_path(file)}:{line}" if line is not None else str(display_path(file))
            if text not in seen:
                seen.append(text)
        return ", ".join(seen)


def _site_key(site) -> tuple:
    file, line = cuda_site(site)
    if file is not None:
        return file, line
    return (site.ptx, site.line) if site is not None else (None, None)


def group_findings(findings) -> list:
    """One group per (kind, source site of each access), in first-seen order: a missing __syncthreads() unrolled
    over a loop gives one RACE group, not one finding per iteration; `i <= n` guarding three loads on one line
    gives one OUT-OF-BOUNDS group of three (its `buffers` name them)."""
    groups: dict = {}
    for f in findings:
        key = (f.kind, tuple(_site_key(s) for s in f.sites))
        g = groups.get(key)
        if g is None:
            groups[key] = FindingGroup(f.kind, f, [f], key[1])
        else:
            g.members.append(f)
    return list(groups.values())


_NOTE_AT = re.compile(r"^(?:(\w+): )?(\S+?):(\d+): (.*)$", re.S)   # `[ROLE: ]FILE:LINE: text`


def note_lines(notes, verbose: bool = False) -> list:
    """The text of each distinct note once: notes that differ only in their `[role: ]file:line:` prefix (expf's
    range reduction read at each of its 30 inlined copies) become one line naming the first place and how many
    there are; `verbose` (`-v`) keeps every note as it was made."""
    if verbose:
        return list(notes)
    places: dict = {}   # text -> [(where or None, the note as made)]
    for note in notes:
        m = _NOTE_AT.match(note)
        text, where = (m[4], f"{m[1] + ': ' if m[1] else ''}{os.path.basename(m[2])}:{m[3]}") if m else (note, None)
        places.setdefault(text, []).append((where, note))
    lines = []
    for text, at in places.items():
        if len(at) == 1:
            lines.append(at[0][1])
        elif at[0][0] is not None:
            lines.append(f"{text} ({len(at)} places: first {at[0][0]}; -v lists each)")
        else:
            lines.append(f"{text} ({len(at)} times)")
    return lines


def launch_path(ptx, verbose: bool = False) -> str:
    """A header's file: the user's (`display_path`), and with `-v` the cache path of PTX compiled from a .cu."""
    shown = display_path(str(ptx))
    return f"{shown}; PTX {ptx}" if verbose and cuda.compiled_from(ptx) else shown
