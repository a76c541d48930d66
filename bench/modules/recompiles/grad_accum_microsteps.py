"""Gradient accumulation: the micro-step counter and the loss scaling live in the Python loop, outside the compiled forward."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLPMixerLite(nn.Module):
    def __init__(self, tokens=8, dim=16, classes=4):
        super().__init__()
        self.token_mix = nn.Linear(tokens, tokens)
        self.channel_mix = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = x + self.token_mix(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        x = x + self.channel_mix(self.norm2(x))
        return self.head(x.mean(1))


def warmup_lr(opt, step, base=1e-3, warmup=2):
    for group in opt.param_groups:
        group["lr"] = base * min(1.0, (step + 1) / warmup)


def main():
    torch.manual_seed(0)
    model = MLPMixerLite()
    forward = torch.compile(model, backend="eager")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    accum = 4
    g = torch.Generator().manual_seed(6)
    losses = []
    micro = 0
    for _ in range(12):
        x = torch.randn(4, 8, 16, generator=g)
        y = torch.randint(0, 4, (4,), generator=g)
        loss = F.cross_entropy(forward(x), y) / accum
        loss.backward()
        micro += 1
        if micro % accum == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            warmup_lr(opt, micro // accum)
            opt.step()
            opt.zero_grad()
        losses.append(loss.detach() * accum)
    return losses


if __name__ == "__main__":
    main()
