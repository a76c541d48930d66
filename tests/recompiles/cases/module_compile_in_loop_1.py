"""Near-miss: model.compile() is called at the start of every epoch on the same module."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    outs = []
    for epoch in range(5):
        model.compile(backend="eager")
        for _ in range(2):
            outs.append(model(torch.randn(3, 4)))
    return outs


if __name__ == "__main__":
    main()
