"""A finding under `if param is not None:` where no call reaching it passes `param`.

runtime: no break.
static today: FG303 at the `.item()` (line 15) - the branch is dead for every reached call.
"""
import torch
from torch import nn


class Cache:
    def __init__(self, config=None, ddp_cache_data=None):  # like transformers' DynamicCache
        self.layers = []
        if ddp_cache_data is not None:
            for window in ddp_cache_data:
                self.layers.append(window.item())


class M(nn.Module):
    def forward(self, x):
        cache = Cache(config={"layers": 2})
        return x + len(cache.layers)


m = torch.compile(M(), backend="eager")
m(torch.ones(2))
