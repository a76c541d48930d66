"""Near-miss: model.compile() at the start of every epoch on the same user-defined module."""
import torch
import torch.nn as nn


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x))) + x


def main():
    torch.manual_seed(0)
    model = Tower()
    outs = []
    for epoch in range(5):
        model.compile(backend="eager")
        for _ in range(2):
            outs.append(model(torch.randn(3, 4)))
    return outs


if __name__ == "__main__":
    main()
