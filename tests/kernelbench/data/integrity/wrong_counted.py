import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Computes 2x where the reference computes a leaky ReLU (NOT EQUIVALENT at call 1), and prints a line each
    time its forward runs: the calls its worker made show in its output."""

    def forward(self, x):
        print("forward ran")
        return x * 2
