"""A KV-cache-like module keeps its fill position as an int attribute and advances it each call."""
import torch
import torch.nn as nn


class Cache(nn.Module):
    def __init__(self, size=16, dim=4):
        super().__init__()
        self.register_buffer("keys", torch.zeros(size, dim))
        self.pos = 0

    def forward(self, k):
        self.keys[self.pos] = k
        self.pos = self.pos + 1  # recompile: module-attr-mutated
        return self.keys.sum(0)


def main():
    torch.manual_seed(0)
    cache = torch.compile(Cache(), backend="eager")
    outs = []
    for _ in range(10):
        outs.append(cache(torch.randn(4)).clone())
    return outs


if __name__ == "__main__":
    main()
