import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim: int, n_cls: int):
        super().__init__()
        self.proj = nn.Linear(dim, n_cls)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.proj(x)
        if logits.isnan().any():  # expect: FG301
            logits = torch.nan_to_num(logits)
        return logits


def make_head(dim: int, n_cls: int) -> "Head":
    return Head(dim, n_cls)
