"""Every instruction-handler module of the machine: importing this fills the opcode tables (volta/exec/table.py).

The machine (volta/exec/machine.py) imports it; the handlers never import the machine, which passes itself to each
one. Order matters where a module reads what an earlier one registered: hopper's `cp` falls back to asynccopy's,
and tensor_real's `ldmatrix` over the reals to copy_real's (each module imports the one it reads first).
"""
from volta.exec import asynccopy, dispatch, hopper, indirect, tensor, wgmma  # noqa: F401
from volta.exec import atomics_real, copy_real, redux_real, tensor_real, wgmma_real  # noqa: F401
