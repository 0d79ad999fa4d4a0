"""DeviceMemory (volta/kernelbench/memory.py) knows storages by id: an id must keep naming one storage.

A storage replaced at its base (a replay's `overlay`) and dropped by its owner frees its id, which CPython hands to
the next object of the same size; the memory must not then give that new storage the old one's base or name.
"""
from __future__ import annotations

import numpy as np

from volta.kernelbench.memory import RUNTIME_BASE, DeviceMemory


class _Storage:
    def __init__(self, name: str):
        self.name, self.dtype = name, "f32"
        self.values = np.zeros(2, object)
        self.size = 2


def test_a_dropped_storage_does_not_lend_its_name_or_base():
    memory = DeviceMemory()
    for attempt in range(50):   # CPython reuses a freed object's address at once; try a few to be sure it did
        old = _Storage("old")
        memory.add(RUNTIME_BASE + (attempt << 32), old, f"x{attempt}")
        memory.add(RUNTIME_BASE + (attempt << 32), _Storage("replacement"), f"y{attempt}")
        old_id = id(old)
        del old
        new = _Storage("new")
        assert memory.name(new) not in {f"x{k}" for k in range(attempt + 1)}
        assert id(new) != old_id   # the memory still holds the old storage, so its id is not free
        assert memory.address(new) not in {RUNTIME_BASE + (k << 32) for k in range(attempt + 1)}
