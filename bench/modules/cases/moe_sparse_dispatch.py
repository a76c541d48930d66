import torch
from torch import nn
from torch.nn import functional as F


class SparseMoeBlock(nn.Module):
    """Mixtral-style sparse MoE block: tokens are dispatched only to their selected experts."""

    def __init__(self, hidden_dim=16, ffn_dim=24, num_experts=4, top_k=2):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.gate = nn.Linear(hidden_dim, num_experts, bias=False)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(hidden_dim, ffn_dim), nn.SiLU(), nn.Linear(ffn_dim, hidden_dim))
             for _ in range(num_experts)]
        )

    def forward(self, hidden_states):
        batch, seq, dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, dim)
        router_logits = self.gate(hidden_states)
        weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        weights, selected = torch.topk(weights, self.top_k, dim=-1)
        weights /= weights.sum(dim=-1, keepdim=True)
        final = torch.zeros_like(hidden_states)
        expert_mask = F.one_hot(selected, num_classes=self.num_experts).permute(2, 1, 0)
        for expert_idx in range(self.num_experts):
            idx, top_x = torch.where(expert_mask[expert_idx])
            if top_x.shape[0] == 0:
                continue
            current = hidden_states[top_x]
            out = self.experts[expert_idx](current) * weights[top_x, idx, None]
            final.index_add_(0, top_x, out.to(hidden_states.dtype))
        return final.view(batch, seq, dim), router_logits


def main():
    torch.manual_seed(0)
    block = SparseMoeBlock()
    fwd = torch.compile(block)
    out, logits = fwd(torch.randn(2, 6, 16))
    return out, logits


if __name__ == "__main__":
    main()
