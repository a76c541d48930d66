import torch
import torch.nn as nn


class CachedProjection(nn.Module):
    """Memoises the projection of the same input tensor (keyed on its storage)."""

    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self._cache = {}

    def forward(self, x):
        key = (x.data_ptr(), tuple(x.shape))
        if key not in self._cache:
            self._cache = {key: self.proj(x)}
        return self._cache[key]


def main():
    torch.manual_seed(0)
    model = CachedProjection().eval()
    f = torch.compile(model, fullgraph=True)
    x = torch.randn(2, 8)
    with torch.no_grad():
        return f(x), f(x)


if __name__ == "__main__":
    main()
