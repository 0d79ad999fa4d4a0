"""What one command leaves behind for the next one run in the same process: nothing it no longer holds.

Expression nodes are interned (volta/symbolic/expr.py) and the table never drops a node by itself; a process that
runs several commands — the Python API in a loop, a pytest session, `volta races` on a manifest's launches, a
KernelBench check after another — would keep every node every earlier command built. Each driver calls
`start_job` first: the bounds memo (which holds nodes) is emptied, then the nodes nothing else holds are swept.
`volta check` does the same with its own memos (volta/equiv/check.py)."""
from __future__ import annotations

from volta.semantics.realops import clear_bounds_memo
from volta.symbolic import expr as E


def start_job() -> int:
    """Free what earlier commands left in the intern table; the number of nodes dropped."""
    clear_bounds_memo()
    return E.sweep()
