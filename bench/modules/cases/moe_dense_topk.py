import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class DenseMoE(nn.Module):
    """Top-k routed MoE computed densely (every expert sees every token, weights zero elsewhere).

    Fine for small expert counts; keeps shapes static so the whole layer is one graph.
    """

    def __init__(self, dim=16, hidden=32, num_experts=4, top_k=2, aux_loss_coef=0.01):
        super().__init__()
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(Expert(dim, hidden) for _ in range(num_experts))
        self.top_k = top_k
        self.aux_loss_coef = aux_loss_coef

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(-1, d)
        probs = self.router(tokens).softmax(-1)
        top_w, top_i = probs.topk(self.top_k, dim=-1)
        top_w = top_w / top_w.sum(-1, keepdim=True)
        gates = torch.zeros_like(probs).scatter(-1, top_i, top_w)
        expert_out = torch.stack([e(tokens) for e in self.experts], dim=1)  # [N, E, d]
        y = torch.einsum("ne,ned->nd", gates, expert_out)
        # Switch-transformer load balancing loss
        density = F.one_hot(top_i[:, 0], num_classes=len(self.experts)).float().mean(0)
        aux = self.aux_loss_coef * len(self.experts) * (density * probs.mean(0)).sum()
        return y.view(b, t, d), aux


def main():
    torch.manual_seed(0)
    moe = DenseMoE()
    moe = torch.compile(moe)
    y, aux = moe(torch.randn(2, 5, 16))
    (y.sum() + aux).backward()
    return y.detach(), aux.detach()


if __name__ == "__main__":
    main()
