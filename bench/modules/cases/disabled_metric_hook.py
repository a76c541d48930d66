import torch
import torch.nn as nn

_HISTORY = []


@torch.compiler.disable
def record_activation_stats(name, t):
    # runs in eager: free to do anything Python likes
    _HISTORY.append((name, float(t.abs().mean()), float(t.std())))


class Encoder(nn.Module):
    def __init__(self, d=12, track=True):
        super().__init__()
        self.l1 = nn.Linear(d, d)
        self.l2 = nn.Linear(d, d)
        self.track = track

    def forward(self, x):
        h = torch.relu(self.l1(x))
        if self.track:
            record_activation_stats("l1", h)
        return self.l2(h)


def main():
    torch.manual_seed(0)
    enc = Encoder()
    out = torch.compile(enc)(torch.randn(3, 12))
    return out, torch.tensor([v for _, v, _ in _HISTORY])


if __name__ == "__main__":
    main()
