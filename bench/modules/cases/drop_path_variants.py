import torch
import torch.nn as nn
import torch.nn.functional as F


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0, scale_by_keep=True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class SpatialDropout(nn.Dropout2d):
    """Drops whole channels of a (N, L, C) sequence tensor."""

    def forward(self, x):
        return super().forward(x.permute(0, 2, 1).unsqueeze(-1)).squeeze(-1).permute(0, 2, 1)


class Block(nn.Module):
    def __init__(self, d=16, dp=0.2):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.drop_path = DropPath(dp) if dp > 0 else nn.Identity()
        self.sdrop = SpatialDropout(0.1)

    def forward(self, x):
        x = x + self.drop_path(F.gelu(self.fc(x)))
        return self.sdrop(x)


def main():
    torch.manual_seed(0)
    blk = Block()
    train_fn = torch.compile(blk, fullgraph=True)
    x = torch.randn(4, 6, 16)
    y_train = train_fn(x)
    blk.eval()
    y_eval = train_fn(x)
    return y_train, y_eval


if __name__ == "__main__":
    main()
