"""The findings a KernelBench candidate gets for gaming the harness rather than computing the reference: what
each kind is called in every report format, and the plain-words paragraph `--explain` prints for it.

Launch findings (races, out-of-bounds, uninitialized reads inside a kernel) are Volta's machine's and keep
their own objects (`exec.findings.Finding`); the kinds here are decided outside any one launch, from what the
whole `forward` did: which tensors it wrote, which streams its work ran on, which threads it left running,
which outputs no custom kernel computed. Each finding names the candidate's line where it applies and the
elements it concerns. A candidate with any of them is never EQUIVALENT (exit code 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

INPUT_WRITTEN = "input-written"
UNINITIALIZED_OUTPUT = "uninitialized-output"
UNINITIALIZED_READ = "uninitialized-read"
STREAM_RACE = "stream-race"
HOST_THREAD = "host-thread"
TORCH_ONLY = "torch-only"

TITLES = {
    INPUT_WRITTEN: "INPUT WRITTEN",
    UNINITIALIZED_OUTPUT: "UNINITIALIZED OUTPUT",
    UNINITIALIZED_READ: "UNINITIALIZED READ",
    STREAM_RACE: "STREAM RACE",
    HOST_THREAD: "HOST THREAD",
    TORCH_ONLY: "NO CUSTOM KERNEL",
}

SUMMARIES = {
    INPUT_WRITTEN: "the candidate writes an input tensor or parameter the reference leaves alone",
    UNINITIALIZED_OUTPUT: "an output element nothing wrote (its value is whatever the allocator left there)",
    UNINITIALIZED_READ: "a torch op in the candidate reads an element nothing wrote (torch.empty)",
    STREAM_RACE: "work on another stream is not ordered before forward returns",
    HOST_THREAD: "a host thread still to run when forward returns writes the outputs",
    TORCH_ONLY: "an output element no custom kernel computed (--require-kernel)",
}

MAX_ELEMENTS = 16      # element indices kept per finding (the count is always exact)


@dataclass
class HackFinding:
    """One finding: its kind, a one-line message, where in the candidate (file, line; None when unknown),
    which tensor and elements it concerns, and what did it (a launch, a torch op, a thread)."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    tensor: str | None = None
    elements: list = field(default_factory=list)     # flat indices, the first MAX_ELEMENTS
    count: int = 0                                   # how many elements in all
    by: str | None = None                            # "launch 2: scale_kernel", "torch op at line 31", ...

    @property
    def title(self) -> str:
        return TITLES[self.kind]

    @property
    def summary(self) -> str:
        return SUMMARIES[self.kind]

    @property
    def explanation(self) -> str:
        return explain(self)

    @property
    def elements_text(self) -> str:
        return elements_text(self)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "title": self.title, "message": self.message, "file": self.file,
                "line": self.line, "tensor": self.tensor, "elements": list(self.elements), "count": self.count,
                "by": self.by, "explain": explain(self)}


def elements_text(f: HackFinding) -> str:
    shown = ", ".join(map(str, f.elements))
    more = " …" if f.count > len(f.elements) else ""
    return f"{f.count:,} element(s) (flat indices {shown}{more})"


def explain(f: HackFinding) -> str:
    """What the candidate did, in plain words, and why Volta will not call it equivalent."""
    where = f" at line {f.line}" if f.line else ""
    if f.kind == INPUT_WRITTEN:
        return (f"The candidate changed {elements_text(f)} of `{f.tensor}`, which it was given to read"
                f"{(' (' + f.by + ')') if f.by else where}. The reference leaves that tensor as it is. A "
                f"benchmark that compares outputs after the call, or calls forward again, sees different "
                f"inputs: zeroing the inputs and returning zeros, or caching a result in a parameter, pass a "
                f"harness that only compares outputs. Writing an input is never equivalent, even when the "
                f"outputs of this call match.")
    if f.kind == UNINITIALIZED_OUTPUT:
        return (f"Output `{f.tensor}` has {elements_text(f)} that no kernel and no torch op wrote. On a GPU "
                f"they hold whatever the allocator hands over, which in a benchmark loop is often the "
                f"reference's freed output of the same shape, so a candidate that computes nothing can look "
                f"right. Volta reads them as unknown, never as zero.")
    if f.kind == UNINITIALIZED_READ:
        what = elements_text(f) + " of" if f.count else "elements of"
        return (f"A torch op{where} reads {what} a tensor that nothing wrote (an uninitialized `torch.empty`, "
                f"accumulated into or read before any kernel filled it). On a GPU its result is whatever memory "
                f"held before; Volta stops there and claims nothing else.")
    if f.kind == STREAM_RACE:
        return (f"{f.by or 'Work'}{where} ran on a stream other than the caller's current stream, and nothing "
                f"(cudaStreamSynchronize, cudaDeviceSynchronize, an event recorded there and waited on, "
                f"`wait_stream`, `torch.cuda.synchronize`) orders it before forward returns. The caller reads "
                f"the outputs on its own stream, possibly before that work has run; a timer on the current "
                f"stream does not see it either, which is why this makes a candidate look fast.")
    if f.kind == HOST_THREAD:
        return (f"{f.by or 'A host thread'} was started{where} and not joined before forward returned. Its "
                f"work (writing the outputs) happens after the call, when the caller may already have read "
                f"them or stopped its timer. Volta does not run it: whatever it would write is missing.")
    if f.kind == TORCH_ONLY:
        return (f"{elements_text(f)} of output `{f.tensor}` come from torch ops alone ({f.by or 'torch'}"
                f"{where}), with no custom kernel in their computation. With --require-kernel a candidate "
                f"must compute its outputs in its own kernels rather than call the library the reference "
                f"calls.")
    return f.message
