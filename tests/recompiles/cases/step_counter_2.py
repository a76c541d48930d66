"""The training loop bumps `model.step` from outside; forward reads it for a warmup factor."""
import torch
import torch.nn as nn


class Warmup(nn.Module):
    def __init__(self, warmup=20):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 6))
        self.step = 0
        self.warmup = warmup

    def forward(self, x):
        factor = min(1.0, (self.step + 1) / self.warmup)
        return self.body(x) * factor


def main():
    torch.manual_seed(0)
    net = Warmup()
    compiled = torch.compile(net, backend="eager")
    x = torch.randn(3, 6)
    outs = []
    for _ in range(10):
        outs.append(compiled(x))
        net.step += 1  # recompile: module-attr-mutated
    return outs


if __name__ == "__main__":
    main()
