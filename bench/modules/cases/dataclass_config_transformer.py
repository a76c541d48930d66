from dataclasses import dataclass, field
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    vocab_size: int = 64
    d_model: int = 32
    n_layers: int = 2
    n_heads: int = 4
    mlp_ratio: float = 4.0
    activation: str = "swiglu"
    norm_eps: float = 1e-5
    tie_embeddings: bool = True
    dropout: float = 0.0
    max_seq_len: int = 32
    layer_scale_init: Optional[float] = None
    extra: dict = field(default_factory=dict)


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        hidden = int(cfg.d_model * cfg.mlp_ratio)
        self.act = cfg.activation
        if cfg.activation == "swiglu":
            self.w12 = nn.Linear(cfg.d_model, 2 * hidden, bias=False)
        else:
            self.w12 = nn.Linear(cfg.d_model, hidden, bias=False)
        self.w3 = nn.Linear(hidden, cfg.d_model, bias=False)

    def forward(self, x):
        h = self.w12(x)
        if self.act == "swiglu":
            a, b = h.chunk(2, dim=-1)
            h = F.silu(a) * b
        elif self.act == "gelu":
            h = F.gelu(h)
        else:
            raise ValueError(f"unknown activation {self.act}")
        return self.w3(h)


class Layer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.norm1 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps)
        self.attn = nn.MultiheadAttention(cfg.d_model, cfg.n_heads, dropout=cfg.dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps)
        self.mlp = MLP(cfg)
        self.gamma = nn.Parameter(torch.full((cfg.d_model,), cfg.layer_scale_init)) \
            if cfg.layer_scale_init is not None else None

    def forward(self, x, mask):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        m = self.mlp(self.norm2(x))
        return x + (self.gamma * m if self.gamma is not None else m)


class LM(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_seq_len, cfg.d_model)
        self.layers = nn.ModuleList([Layer(cfg) for _ in range(cfg.n_layers)])
        self.norm = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        if cfg.tie_embeddings:
            self.head.weight = self.tok.weight

    def forward(self, idx):
        T = idx.shape[1]
        assert T <= self.cfg.max_seq_len, f"sequence too long: {T} > {self.cfg.max_seq_len}"
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        mask = torch.triu(torch.full((T, T), float("-inf"), device=idx.device), diagonal=1)
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.norm(x))


def main():
    torch.manual_seed(0)
    cfg = ModelConfig(layer_scale_init=0.1)
    model = LM(cfg).eval()
    compiled = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        a = compiled(torch.randint(0, 64, (2, 12)))
    cfg2 = ModelConfig(activation="gelu", tie_embeddings=False)
    b = torch.compile(LM(cfg2).eval(), fullgraph=True)(torch.randint(0, 64, (2, 12)))
    return a, b.detach()


if __name__ == "__main__":
    main()
