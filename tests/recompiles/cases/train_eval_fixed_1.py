"""Near-miss: model.train() once before the loop; the training flag never changes between calls."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    train_step = torch.compile(model, backend="eager")
    x = torch.randn(4, 8)
    outs = []
    model.train()
    for _ in range(6):
        outs.append(train_step(x))
    return outs


if __name__ == "__main__":
    main()
