import torch
import torch.nn as nn


class Config:
    verbose = True
    hidden = 16
    layers = 2


class Encoder(nn.Module):
    def __init__(self, cfg=Config):
        super().__init__()
        self.cfg = cfg
        self.layers = nn.ModuleList(nn.Linear(cfg.hidden, cfg.hidden) for _ in range(cfg.layers))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = torch.relu(layer(x))
            if self.cfg.verbose:
                print(f"[encoder] layer {i} -> {tuple(x.shape)}")
        return x


def main():
    torch.manual_seed(0)
    enc = Encoder()
    compiled = torch.compile(enc, fullgraph=True)
    return compiled(torch.randn(2, 16))


if __name__ == "__main__":
    main()
