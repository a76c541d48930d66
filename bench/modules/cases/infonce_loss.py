import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CLIPLoss(nn.Module):
    def __init__(self, init_temperature: float = 0.07, learnable: bool = True):
        super().__init__()
        value = torch.tensor(math.log(1 / init_temperature))
        if learnable:
            self.logit_scale = nn.Parameter(value)
        else:
            self.register_buffer("logit_scale", value)

    def forward(self, img_emb, txt_emb):
        img_emb = F.normalize(img_emb, dim=-1)
        txt_emb = F.normalize(txt_emb, dim=-1)
        scale = self.logit_scale.exp().clamp(max=100)
        logits = scale * img_emb @ txt_emb.t()
        labels = torch.arange(logits.shape[0], device=logits.device)
        return 0.5 * (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels))


class SimCLRLoss(nn.Module):
    def __init__(self, temperature=0.5):
        super().__init__()
        self.t = temperature

    def forward(self, z1, z2):
        z = F.normalize(torch.cat([z1, z2]), dim=1)
        n = z1.shape[0]
        sim = z @ z.t() / self.t
        sim.fill_diagonal_(float("-inf"))
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, targets)


def main():
    torch.manual_seed(0)
    clip = torch.compile(CLIPLoss())
    simclr = torch.compile(SimCLRLoss())
    a, b = torch.randn(6, 16), torch.randn(6, 16)
    l1 = clip(a, b)
    l1.backward()
    return l1.detach(), simclr(a, b), clip.logit_scale.grad


if __name__ == "__main__":
    print(main())
