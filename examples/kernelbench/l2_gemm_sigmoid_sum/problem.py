import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear layer, sigmoid, then a sum over the features (keepdim)."""

    def __init__(self, input_size, hidden_size):
        super(Model, self).__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        x = self.linear(x)
        x = torch.sigmoid(x)
        x = torch.sum(x, dim=1, keepdim=True)
        return x


batch_size = 128
input_size = 10
hidden_size = 20


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
