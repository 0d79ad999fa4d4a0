"""What runs machines for a command: a launch sequence over shared buffers (`pipeline`), concrete trials over
input sets and schedules (`trials`), the feasibility of a race's path conditions (`feasible`), and whether
replicated stores equal over the reals differ in bits (`replica_bits`). Commands call these from volta/session
and volta/equiv."""
