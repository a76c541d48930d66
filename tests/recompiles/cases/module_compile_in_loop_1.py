"""Near-miss: model.compile() at the start of every epoch on the same nn.Sequential (on 2.13 Dynamo skips it: nothing compiles)."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    outs = []
    for epoch in range(5):
        model.compile(backend="eager")
        for _ in range(2):
            outs.append(model(torch.randn(3, 4)))
    return outs


if __name__ == "__main__":
    main()
