import logging

import torch
import torch.nn as nn

log = logging.getLogger("model")


class Tower(nn.Module):
    def __init__(self, dims=(8, 16, 8), debug=False):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.debug = debug

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = torch.tanh(layer(x))
            if self.debug:
                print(f"layer {i}: {tuple(x.shape)}")
            if not torch.compiler.is_compiling():
                log.debug("layer %d done", i)
        return x


def main():
    torch.manual_seed(0)
    model = Tower()
    compiled = torch.compile(model, fullgraph=True)
    return compiled(torch.randn(5, 8))


if __name__ == "__main__":
    main()
