"""Near-miss: a fresh batch dict per call; the keys are fixed and the values are same-shape tensors."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)

    def forward(self, batch):
        pred = self.fc(batch["features"]).squeeze(-1)
        return ((pred - batch["target"]) ** 2 * batch["weight"]).mean()


def main():
    torch.manual_seed(0)
    model = torch.compile(Net(), backend="eager")
    outs = []
    for _ in range(10):
        batch = {"features": torch.randn(5, 6), "target": torch.randn(5), "weight": torch.rand(5)}
        outs.append(model(batch))
    return outs


if __name__ == "__main__":
    main()
