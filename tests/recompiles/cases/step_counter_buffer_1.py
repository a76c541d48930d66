"""Near-miss: the step counter is a 0-d buffer incremented in place, so no Python int is guarded."""
import torch
import torch.nn as nn


class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("calls", torch.zeros((), dtype=torch.float32))

    def forward(self, x):
        self.calls += 1
        return self.proj(x) / self.calls


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
