"""The end of an indirect call's dispatch chain: lanes whose pointer names no function the chain runs.

Lowering (volta/ir/indirect.py) turns `call (r), %rd, (a), proto;` into compare-and-branch steps, one per
function whose address the module takes, each inlining its callee. A lane still here holds a value that
is no candidate's address: a call through it would jump to no function (PTX ISA §9.7.13.4: the target
must be a function's address), so the run stops with UNSUPPORTED naming the thread, the value and the
call's file:line:col, and why a known function was not a candidate when the value is its address.
"""
from __future__ import annotations

from volta.errors import Unsupported
from volta.exec.table import handles
from volta.ir.indirect import MISS_OP


@handles(MISS_OP)
def _indirect_miss(m, op, lanes):
    (miss,) = op.operands
    values, flags = m.read(miss.target, lanes)
    if flags is not None and flags.any():
        m.require_concrete(op, flags, lanes, "call target")  # a pointer from tensor data: concrete inputs
    lane, value = int(lanes[0]), int(values[0])
    who = m.thread_id(lane)
    names = {address: name for name, address in miss.addresses}
    reasons = {address: (name, why) for name, address, why in miss.skipped}
    reg = miss.target.name
    if value in reasons:
        name, why = reasons[value]
        raise Unsupported(f"indirect call through `{reg}`: {who} calls `{name}`, which this call cannot run "
                          f"({why})", op.span)
    if value in names:
        raise Unsupported(f"indirect call through `{reg}`: {who} calls `{names[value]}`, whose address the "
                          f"module never takes (so it is no candidate of this call)", op.span)
    tried = ", ".join(f"`{name}`" for name, _ in miss.candidates) or "none"
    raise Unsupported(f"indirect call through `{reg}`: {who} holds {value:#x}, which is no function's address "
                      f"(functions whose address is taken: {tried}); the call would jump to no function",
                      op.span)
