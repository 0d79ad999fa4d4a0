"""The race detector's state: shadow memory, the PTX memory model's causality order, ordering races of strong
accesses, replicated stores and racing reads (a machine keeps one of each; the accesses feed them)."""
