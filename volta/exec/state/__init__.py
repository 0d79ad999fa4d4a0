"""The machine's state and what every instruction handler shares: memory regions and the accesses of one
instruction, register values (lane-structured symbols, operands), the bookkeeping of barriers, collectives and
findings (`services`, a mixin of the Machine), and what a concrete run gets from outside (runtime, printf,
schedules of contended atomics)."""
