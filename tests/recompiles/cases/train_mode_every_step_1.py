"""Near-miss: model.train() is called at the top of every step, but the flag never actually changes."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.0), nn.Linear(8, 2))
    compiled = torch.compile(model, backend="eager")
    outs = []
    for step in range(8):
        model.train()
        outs.append(compiled(torch.randn(4, 8)))
    return outs


if __name__ == "__main__":
    main()
