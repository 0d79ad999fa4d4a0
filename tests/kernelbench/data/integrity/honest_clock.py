import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Times its one path with the `time` module's clocks (and sleeps): clock reads touch no tensor, so the
    value replay skips them and replays the rest (honest)."""

    def forward(self, x):
        start = time.perf_counter()
        y = torch.where(x > 0, x, 0.25 * x)
        time.sleep(0)
        self.seconds = time.perf_counter() - start
        return y
