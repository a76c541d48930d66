"""Near-miss: an evaluation loop where every call runs under torch.no_grad()."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(6, 6), backend="eager")
    outs = []
    with torch.no_grad():
        for step in range(8):
            outs.append(model(torch.randn(2, 6)))
    return outs


if __name__ == "__main__":
    main()
