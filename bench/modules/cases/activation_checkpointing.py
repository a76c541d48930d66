import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class ResBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class DeepNet(nn.Module):
    def __init__(self, d=16, depth=4, grad_checkpointing=True):
        super().__init__()
        self.blocks = nn.ModuleList(ResBlock(d) for _ in range(depth))
        self.grad_checkpointing = grad_checkpointing

    def forward(self, x):
        for blk in self.blocks:
            if self.grad_checkpointing and self.training:
                x = checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        return x


def main():
    torch.manual_seed(0)
    net = DeepNet()
    net.compile()
    x = torch.randn(3, 16, requires_grad=True)
    net(x).pow(2).mean().backward()
    return x.grad, net.blocks[0].ff[0].weight.grad


if __name__ == "__main__":
    main()
