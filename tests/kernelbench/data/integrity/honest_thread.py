import threading

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """The honest control of thread_forge.py: the leaky ReLU computed in a thread's target (a stand-in method
    and a torch function called by the thread itself), the thread joined before forward returns."""

    def forward(self, x):
        y = torch.empty_like(x)
        worker = threading.Thread(target=torch.where, args=(x > 0, x, 0.25 * x), kwargs={"out": y})
        worker.start()
        if worker.is_alive():
            worker.join()
        return y
