"""Breaks under fullgraph=False, then a fullgraph=True error nobody catches (exit status 1)."""
import torch

import util


@torch.compile(backend="eager")
def forward(x):
    x = x.cos()
    x = util.announce(x)
    x = util.describe(x)
    torch._dynamo.graph_break()
    return x.sum()


@torch.compile(backend="eager", fullgraph=True)
def strict_step(x):
    y = x * 3
    print(
        "strict", y.shape,
    )
    return y


for n in (2, 3):
    forward(torch.ones(n))
strict_step(torch.ones(2))
