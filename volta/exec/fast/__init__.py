"""Fast paths of the machine for a lane that runs alone: instructions decoded into closures over a register cache
(`onestep`), straight-line runs of them compiled into one function (`oneblock`), and the loop that runs them
(`onethread`), falling back to the general path for what they do not cover."""
