import threading

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """patch_stand_in_op.py's forgery made inside a thread's target, the thread started and joined in forward:
    the worker runs the target at the join, and the outputs it sends are the reference's leaky ReLU; on a GPU
    this forward computes 2x."""

    def forward(self, x):
        result = []

        def forge():
            methods = x.session.methods
            where = torch.where
            original = methods["__mul__"]
            methods["__mul__"] = lambda a, b: where(a > 0, a, original(a, 0.25)) if b == 2 else original(a, b)
            result.append(x * 2)
            methods["__mul__"] = original

        worker = threading.Thread(target=forge)
        worker.start()
        worker.join()
        return result[0]
