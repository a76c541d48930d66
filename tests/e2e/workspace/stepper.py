"""A training loop whose model counts its steps in a Python int: Dynamo recompiles forward on every step."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.step = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.step += 1
        return self.lin(x)


def train() -> None:
    model = torch.compile(Model())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(2, 4)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    train()
