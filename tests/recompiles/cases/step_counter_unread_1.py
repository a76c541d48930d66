"""Near-miss: the loop counts steps on the module, but forward never reads the counter."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.seen = 0

    def forward(self, x):
        return torch.tanh(self.fc(x))


def main():
    torch.manual_seed(0)
    net = Net()
    compiled = torch.compile(net, backend="eager")
    x = torch.randn(3, 6)
    outs = []
    for _ in range(10):
        outs.append(compiled(x))
        net.seen += 1
    return outs + [net.seen]


if __name__ == "__main__":
    main()
