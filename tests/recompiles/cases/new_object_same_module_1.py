"""Near-miss: a new nn.Linear of the same shape is passed on every call (parameters are inputs, not constants)."""
import torch
import torch.nn as nn


def run(layer, x):
    return layer(x).relu()


def main():
    torch.manual_seed(0)
    fn = torch.compile(run, backend="eager")
    x = torch.randn(3, 4)
    outs = []
    for _ in range(10):
        outs.append(fn(nn.Linear(4, 4), x))
    return outs


if __name__ == "__main__":
    main()
