"""Recompiles without a single graph break (`fullgraph trace` tests; tests/test_trace.py)."""
import torch


def step(x, lr):
    return x * lr


def scale(x, lr):
    return x * lr


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.calls


def main():
    compiled = torch.compile(step, backend="eager")
    for lr in (0.1, 0.2, 0.3):  # a Python float: specialized, then (one recompile) dynamic
        compiled(torch.ones(3), lr)
    scaled = torch.compile(scale, backend="eager")
    for lr in (0.1, 0.2, 0.3):  # near miss: the rate as a tensor is an input of one graph
        scaled(torch.ones(3), torch.tensor(lr))
    counter = torch.compile(Counter(), backend="eager")
    with torch._dynamo.config.patch(recompile_limit=3):
        for _ in range(5):  # an int attribute of a module is a constant: a recompile per call, up to the limit
            counter(torch.ones(3))


if __name__ == "__main__":
    main()
