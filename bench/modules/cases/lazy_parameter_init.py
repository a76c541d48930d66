import torch
import torch.nn as nn


class LazyScale(nn.Module):
    """Learns a per-feature scale whose size is only known at the first call."""

    def __init__(self):
        super().__init__()
        self.scale = None

    def forward(self, x):
        if self.scale is None:
            self.scale = nn.Parameter(torch.ones(x.shape[-1]))
        return x * self.scale


def main():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 6), LazyScale(), nn.ReLU())
    cm = torch.compile(m)
    return cm(torch.randn(2, 4)), cm(torch.randn(2, 4))


if __name__ == "__main__":
    main()
