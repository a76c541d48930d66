import warnings

import torch
import torch.nn as nn


class Pooler(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.dense = nn.Linear(dim, dim)

    def forward(self, hidden, mask=None, attention_mask=None):
        if attention_mask is not None:
            warnings.warn("`attention_mask` is deprecated, use `mask`", FutureWarning)
            mask = attention_mask
        if mask is None:
            pooled = hidden.mean(1)
        else:
            m = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * m).sum(1) / m.sum(1).clamp_min(1.0)
        return torch.tanh(self.dense(pooled))


def main():
    torch.manual_seed(0)
    pooler = torch.compile(Pooler())
    h = torch.randn(2, 5, 12)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = pooler(h, attention_mask=mask)
    b = pooler(h, mask=mask)
    return a, b


if __name__ == "__main__":
    main()
