import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm


class Chomp1d(nn.Module):
    def __init__(self, chomp):
        super().__init__()
        self.chomp = chomp

    def forward(self, x):
        return x[:, :, : -self.chomp].contiguous() if self.chomp > 0 else x


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, k=3, dilation=1):
        super().__init__()
        pad = (k - 1) * dilation
        self.net = nn.Sequential(
            weight_norm(nn.Conv1d(cin, cout, k, padding=pad, dilation=dilation)), Chomp1d(pad), nn.ReLU(),
            weight_norm(nn.Conv1d(cout, cout, k, padding=pad, dilation=dilation)), Chomp1d(pad), nn.ReLU(),
        )
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        res = x if self.down is None else self.down(x)
        return torch.relu(self.net(x) + res)


class TCN(nn.Module):
    def __init__(self, channels=(4, 8, 8)):
        super().__init__()
        self.blocks = nn.Sequential(*[TemporalBlock(a, b, dilation=2 ** i)
                                      for i, (a, b) in enumerate(zip(channels[:-1], channels[1:]))])

    def forward(self, x):
        return self.blocks(x)


def main():
    torch.manual_seed(0)
    tcn = TCN()
    out = torch.compile(tcn)(torch.randn(2, 4, 20))
    out.mean().backward()
    return out.detach(), tcn.blocks[0].net[0].parametrizations.weight.original0.grad
if __name__ == "__main__":
    main()
