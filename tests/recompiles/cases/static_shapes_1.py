"""dynamic=False and a data loader whose batch size varies (the last batches of buckets are smaller)."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(16, 4), backend="eager", dynamic=False)
    outs = []
    for batch in (32, 31, 30, 29, 28, 27, 26, 25, 24, 23):
        x = torch.randn(batch, 16)  # recompile: shape-varies-static
        outs.append(model(x).sum(0))
    return outs


if __name__ == "__main__":
    main()
