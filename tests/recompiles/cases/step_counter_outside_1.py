"""Near-miss: the counter lives in the training loop, and only the compiled call's output is scaled by it."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(4, 4), backend="eager")
    x = torch.randn(2, 4)
    outs = []
    step = 0
    for _ in range(10):
        step += 1
        outs.append(model(x) / step)
    return outs


if __name__ == "__main__":
    main()
