"""Instruction handlers, registered into the opcode tables of `table.py`: `DISPATCH` (bits, flags, findings) and
`REAL` (the same instructions over the reals, for `volta check`). One module per instruction family: `dispatch`
(control flow, memory, barriers, collectives), `tensor`/`wgmma` (matrix instructions), `asynccopy`/`hopper`
(asynchronous copies, mbarriers), and the `_real` modules beside them. `every.py` imports them all; the machine
imports it, and no handler imports the machine (it passes itself to each)."""
