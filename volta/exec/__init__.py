"""The machine: a launch's threads as vectors of lanes, executing lowered PTX instruction by instruction.

Sub-packages, lowest first (each imports only those before it, and the two leaf modules here):
- `findings.py`, `limits.py`: what a run reports (values, not exceptions) and the bounds of one command.
- `races/`: the race detector's own state: shadow memory, the memory model's order, ordering races, replicated
  stores and racing reads.
- `state/`: the machine's state and the bookkeeping every handler shares: memory regions and accesses,
  lane-structured values and operands, barriers and collectives (`services`), a concrete run's outside world.
- `handlers/`: instruction handlers registered into the opcode tables (`handlers/table.py`: `DISPATCH` over bits,
  `REAL` over the reals), one module per instruction family and domain; they never import the machine.
- `fast/`: the one-thread fast paths (decoded steps, compiled blocks) the machine hands a lone lane to.
- `machine.py`: `Machine`, the scheduler over all of the above.
- `drivers/`: what runs machines for a command: launch pipelines, concrete trials, feasibility of a race, the
  bits of replicated stores.
"""
