import torch
import torch.nn as nn


class DynamicInt8Linear(nn.Module):
    """Per-tensor dynamic int8 fake-quantisation of the activations (absmax scaling)."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, x):
        amax = x.abs().amax().item()
        scale = 127.0 / (amax + 1e-6)
        xq = torch.clamp(torch.round(x * scale), -128, 127) / scale
        return self.lin(xq)


class SparseStats(nn.Module):
    def forward(self, x):
        nz = torch.nonzero(x > 0.5)
        active = x[x > 0.5]
        return nz.shape[0], active.sum()


class QuantMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = DynamicInt8Linear(8, 16)
        self.fc2 = DynamicInt8Linear(16, 4)
        self.stats = SparseStats()

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        n_active, total = self.stats(h)
        return self.fc2(h), total / max(n_active, 1)


def main():
    torch.manual_seed(0)
    model = torch.compile(QuantMLP().eval(), fullgraph=True)
    with torch.no_grad():
        return model(torch.randn(4, 8))


if __name__ == "__main__":
    main()
