"""A tiny GPT trained with a step-dependent dropout warmup kept on the model as a Python int."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab=64, dim=32, heads=4, layers=2, ctx=16, warmup_steps=100):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, ctx, dim))
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.register_buffer("causal", torch.triu(torch.full((ctx, ctx), float("-inf")), 1))
        self.warmup_steps = warmup_steps
        self.global_step = 0

    def embed_scale(self):
        # ramp the embedding scale during warmup
        progress = min(1.0, self.global_step / self.warmup_steps)
        return 0.5 + 0.5 * math.sin(progress * math.pi / 2)

    def forward(self, idx, targets):
        self.global_step += 1  # recompile: module-attr-mutated
        t = idx.shape[1]
        x = self.tok(idx) * self.embed_scale() + self.pos[:, :t]
        for blk in self.blocks:
            x = blk(x, self.causal[:t, :t])
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def batches(n, batch=4, ctx=16, vocab=64):
    g = torch.Generator().manual_seed(1)
    for _ in range(n):
        seq = torch.randint(0, vocab, (batch, ctx + 1), generator=g)
        yield seq[:, :-1], seq[:, 1:]


def main():
    torch.manual_seed(0)
    model = TinyGPT()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    compiled = torch.compile(model, backend="eager")
    losses = []
    for idx, targets in batches(10):
        loss = compiled(idx, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses


if __name__ == "__main__":
    main()
