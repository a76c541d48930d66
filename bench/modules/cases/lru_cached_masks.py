from functools import lru_cache

import torch
import torch.nn as nn


@lru_cache(maxsize=8)
def relative_position_index(window: int) -> torch.Tensor:
    coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
    rel = coords[:, :, None] - coords[:, None, :]
    rel = rel.permute(1, 2, 0) + (window - 1)
    return rel[..., 0] * (2 * window - 1) + rel[..., 1]


class WindowAttentionBias(nn.Module):
    """Swin-style relative position bias."""

    def __init__(self, window=3, heads=2):
        super().__init__()
        self.window = window
        self.heads = heads
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads) * 0.02)

    def forward(self, attn):
        idx = relative_position_index(self.window)
        bias = self.table[idx.reshape(-1)].reshape(self.window ** 2, self.window ** 2, self.heads)
        return attn + bias.permute(2, 0, 1).unsqueeze(0)


def main():
    torch.manual_seed(0)
    m = WindowAttentionBias()
    f = torch.compile(m)
    attn = torch.randn(2, 2, 9, 9)
    return f(attn), f(attn * 2)


if __name__ == "__main__":
    main()
