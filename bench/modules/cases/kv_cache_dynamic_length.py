import torch
import torch.nn as nn


class RollingKVCache:
    """Cache that remembers how many positions are filled in a tensor counter."""

    def __init__(self, max_len, dim):
        self.k = torch.zeros(1, max_len, dim)
        self.v = torch.zeros(1, max_len, dim)
        self.length = torch.zeros((), dtype=torch.long)

    def append(self, k, v):
        n = k.shape[1]
        start = int(self.length)
        self.k[:, start:start + n] = k
        self.v[:, start:start + n] = v
        self.length += n
        return self.k[:, :start + n], self.v[:, :start + n]


class SingleHeadAttn(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.scale = dim ** -0.5

    def forward(self, x, cache: RollingKVCache):
        q = self.q(x)
        k, v = self.kv(x).chunk(2, dim=-1)
        k, v = cache.append(k, v)
        att = (q @ k.transpose(-1, -2) * self.scale).softmax(-1)
        return att @ v


def main():
    torch.manual_seed(0)
    attn = SingleHeadAttn().eval()
    step = torch.compile(attn)
    cache = RollingKVCache(16, 16)
    outs = []
    with torch.no_grad():
        outs.append(step(torch.randn(1, 4, 16), cache))
        for _ in range(3):
            outs.append(step(torch.randn(1, 1, 16), cache))
    return torch.cat(outs, dim=1)


if __name__ == "__main__":
    print(main().shape)
