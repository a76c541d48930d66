import copy

import torch
import torch.nn as nn


class EMAWrapper(nn.Module):
    """Wraps a model and keeps an EMA copy that is created on the first training call."""

    def __init__(self, model, decay=0.99):
        super().__init__()
        self.model = model
        self.decay = decay
        self.ema = None

    def forward(self, x):
        out = self.model(x)
        if self.training:
            self.update_ema()
        return out

    def update_ema(self):
        if self.ema is None:
            self.ema = copy.deepcopy(self.model)
            for p in self.ema.parameters():
                p.requires_grad_(False)
            return
        with torch.no_grad():
            for pe, pm in zip(self.ema.parameters(), self.model.parameters()):
                pe.lerp_(pm, 1.0 - self.decay)


def main():
    torch.manual_seed(0)
    net = EMAWrapper(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    compiled = torch.compile(net)
    x = torch.randn(5, 4)
    outs = [compiled(x) for _ in range(3)]
    return torch.cat(outs), net.ema[0].weight.detach().clone()


if __name__ == "__main__":
    main()
