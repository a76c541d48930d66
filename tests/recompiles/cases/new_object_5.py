"""A new nn.Module is built per call with a different int hyper-parameter (the pooling kernel)."""
import torch
import torch.nn as nn


class Pool(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return nn.functional.avg_pool1d(x, self.k)


def run(pool, x):
    return pool(x).sum(-1)


def main():
    torch.manual_seed(0)
    fn = torch.compile(run, backend="eager")
    x = torch.randn(2, 3, 64)
    outs = []
    for k in (1, 2, 4, 8, 16, 32, 64, 3, 5, 7):
        outs.append(fn(Pool(k), x))  # recompile: new-object-per-call
    return outs


if __name__ == "__main__":
    main()
