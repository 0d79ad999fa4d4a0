"""Multi-kernel pipelines: launches of one side run in order on the same buffers (`[[ref.launch]]`).

A launch boundary is a grid-wide barrier: every access of a launch happens before every access of the next,
so races are looked for within each launch only (each machine starts a fresh race shadow). What carries over
is the buffers' memory: the bytes, the per-byte taint (DATA/UNDEF) and, in `volta check`, the symbolic values
stored — the next machine's `_setup_memory` takes the previous machine's buffer regions as they are
(`Machine(carried=...)`). Shared memory, registers and local memory do not carry over, as on a GPU.
A `temp` buffer (an intermediate) starts never-written: a read of it before a launch wrote it is an
uninitialized read, as for shared memory.
"""
from __future__ import annotations


def machine(carried, *args, **kwargs):
    """A Machine whose buffers are `carried` (name -> Region of the previous launch's machine), or fresh."""
    from volta.exec.machine import Machine  # start-up: reports import the drivers without running anything

    return Machine(*args, carried=carried, **kwargs)


def combine(machines: list):
    """The last machine of a sequence, standing for the whole sequence: its buffers are the final memory;
    findings, thread-instruction counts, real-semantics notes, tensor-core rows and the stores found equal over the
    reals (`replicas`) are those of every launch."""
    last = machines[-1]
    if len(machines) > 1:
        last.findings = [f for m in machines for f in m.findings]
        last.thread_instructions = sum(m.thread_instructions for m in machines)
        notes = [n for m in machines for n in getattr(m, "real_notes", ())]
        if notes:
            last.real_notes = list(dict.fromkeys(notes))
        last.tensor_rows = {name: row for m in machines for name, row in m.tensor_rows.items()}
        last.replicas = set().union(*(m.replicas for m in machines))
    last.sequence = [step_name(m.launch, m.prog.name) for m in machines]
    return last


def names(m) -> str:
    """`partial_sums → reduce_partials` for a sequence's machine, the kernel name otherwise."""
    return " → ".join(getattr(m, "sequence", None) or [m.prog.name])


def step_name(launch, kernel: str | None = None) -> str:
    """What a report calls one step of a sequence: a host step's text (`memset out 0`), else the kernel by the
    name the user wrote in the .cu file (`norm` for nvcc's `_Z4normPfi`; --kernel takes either)."""
    from volta.ir.program import source_names  # start-up: reports import the drivers without running anything

    name = kernel or launch.kernel
    short = source_names(name) if name else ()
    return launch.host or (short[0] if short else name) or str(launch.ptx)
