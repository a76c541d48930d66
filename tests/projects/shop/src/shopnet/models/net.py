import torch.nn as nn

from .base import BaseBlock
from .heads import Head, make_head

__all__ = ["Net", "ResBlock"]


class ResBlock(BaseBlock):
    def forward(self, x):
        return x + super().forward(x)


class Net(nn.Module):
    head: Head

    def __init__(self, dim: int = 8, depth: int = 2, n_cls: int = 3):
        super().__init__()
        self.blocks = nn.ModuleList([ResBlock(dim) for _ in range(depth)])
        self.head = make_head(dim, n_cls)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)
