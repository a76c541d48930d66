"""An int attribute of the module counts forward calls and scales the output (a step counter)."""
import torch
import torch.nn as nn


class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x):
        self.calls += 1  # recompile: module-attr-mutated
        return self.proj(x) * (1.0 / self.calls)


def main():
    torch.manual_seed(0)
    model = torch.compile(Counted(), backend="eager")
    x = torch.randn(4, 8)
    outs = []
    for _ in range(10):
        outs.append(model(x))
    return outs


if __name__ == "__main__":
    main()
