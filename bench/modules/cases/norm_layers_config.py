import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6, elementwise_affine: bool = True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim)) if elementwise_affine else None

    def forward(self, x):
        out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        if self.weight is not None:
            out = out * self.weight
        return out


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over channels of an NCHW tensor (ConvNeXt)."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = super().forward(x)
        return x.permute(0, 3, 1, 2)


NORMS = {
    "layer": lambda d: nn.LayerNorm(d),
    "rms": lambda d: RMSNorm(d),
    "rms_noaffine": lambda d: RMSNorm(d, elementwise_affine=False),
}


class ConvBlock(nn.Module):
    def __init__(self, ch=8, norm="rms"):
        super().__init__()
        self.dw = nn.Conv2d(ch, ch, 3, padding=1, groups=ch)
        self.norm2d = LayerNorm2d(ch)
        self.pw = nn.Linear(ch, ch)
        self.norm = NORMS[norm](ch)

    def forward(self, x):
        x = self.norm2d(self.dw(x))
        y = self.norm(self.pw(x.permute(0, 2, 3, 1)))
        return x + y.permute(0, 3, 1, 2)


def main():
    torch.manual_seed(0)
    outs = []
    for kind in NORMS:
        block = ConvBlock(norm=kind)
        block.compile(fullgraph=True)
        outs.append(block(torch.randn(2, 8, 5, 5)))
    return outs


if __name__ == "__main__":
    main()
