"""Attention, MLP and Block."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .utils import check_finite, log_shape


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int, debug: bool = False):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.debug = debug

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))  # math on a Python int: fine
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = att.masked_fill(~mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        if self.debug:
            log_shape("att", att)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


class MLP(nn.Module):
    def __init__(self, n_embd: int):
        super().__init__()
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.out = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        h = F.gelu(self.fc(x))
        if torch.isnan(h).any():  # expect: FG301
            h = torch.nan_to_num(h)
        return self.out(h)


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int, debug: bool = False):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, debug=debug)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = check_finite("block", x + self.mlp(self.ln2(x)))
        return x
