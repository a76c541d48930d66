"""Near-miss: int attributes of the module (heads, head_dim) are read in forward but never change."""
import torch
import torch.nn as nn


class Heads(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, -1)
        q = q.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / self.head_dim ** 0.5, -1)
        return (att @ v).transpose(1, 2).reshape(b, t, d)


def main():
    torch.manual_seed(0)
    model = torch.compile(Heads(), backend="eager")
    outs = []
    for _ in range(8):
        outs.append(model(torch.randn(2, 5, 16)))
    return outs


if __name__ == "__main__":
    main()
