"""Default dynamic=None, batch sizes that include 1 (the last sample of an epoch)."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(5, 5), backend="eager")
    outs = []
    for batch in (4, 4, 3, 4, 1, 4, 2, 1):
        x = torch.randn(batch, 5)  # recompile: dynamic-dim-unmarked
        outs.append(model(x).sum(0))
    return outs


if __name__ == "__main__":
    main()
