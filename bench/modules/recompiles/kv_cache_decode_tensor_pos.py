"""Incremental decoding with a preallocated KV cache; the write position is a tensor, the cache shape fixed."""
import torch
import torch.nn as nn


class CachedAttention(nn.Module):
    def __init__(self, dim=16, heads=2, max_len=32, batch=2):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.register_buffer("k_cache", torch.zeros(batch, heads, max_len, self.hd))
        self.register_buffer("v_cache", torch.zeros(batch, heads, max_len, self.hd))
        self.register_buffer("positions", torch.arange(max_len))

    def forward(self, x, pos):
        b = x.shape[0]
        q, k, v = self.qkv(x).view(b, 3, self.heads, 1, self.hd).unbind(1)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        visible = (self.positions <= pos).float()
        att = (q @ self.k_cache.transpose(-1, -2)) / self.hd ** 0.5
        att = att.masked_fill(visible == 0, float("-inf")).softmax(-1)
        y = (att @ self.v_cache).transpose(1, 2).reshape(b, 1, -1)
        return self.out(y)


class Decoder(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.attn = CachedAttention(dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, token, pos):
        return self.lm_head(self.attn(self.emb(token), pos))[:, -1]


@torch.no_grad()
def main():
    torch.manual_seed(0)
    dec = Decoder().eval()
    step = torch.compile(dec, backend="eager")
    token = torch.tensor([[1], [2]])
    out = []
    for i in range(10):
        logits = step(token, torch.tensor([i]))
        token = logits.argmax(-1, keepdim=True)
        out.append(token.clone())
    return out


if __name__ == "__main__":
    main()
