"""Near-miss: dynamic=False with drop_last=True, so every batch has the same size."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(100, 8))
    loader = DataLoader(data, batch_size=16, drop_last=True)
    model = torch.compile(nn.Linear(8, 2), backend="eager", dynamic=False)
    outs = []
    for (x,) in loader:
        outs.append(model(x).sum(0))
    return outs


if __name__ == "__main__":
    main()
