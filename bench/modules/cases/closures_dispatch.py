import functools
import operator

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_activation(name, **kw):
    table = {
        "relu": F.relu,
        "gelu_tanh": functools.partial(F.gelu, approximate="tanh"),
        "leaky": lambda x: F.leaky_relu(x, kw.get("slope", 0.01)),
        "swish": lambda x: x * torch.sigmoid(kw.get("beta", 1.0) * x),
    }
    return table[name]


def make_residual(fn, scale):
    def residual(x):
        return x + scale * fn(x)
    return residual


class Mixer(nn.Module):
    def __init__(self, dim=12, acts=("relu", "gelu_tanh", "leaky", "swish")):
        super().__init__()
        self.lins = nn.ModuleList(nn.Linear(dim, dim) for _ in acts)
        self.acts = [make_activation(a, slope=0.2, beta=1.5) for a in acts]

    def forward(self, x):
        branches = []
        for lin, act in zip(self.lins, self.acts):
            step = make_residual(lambda t, lin=lin, act=act: act(lin(t)), 0.5)
            branches.append(step(x))
        return functools.reduce(operator.add, branches) / len(branches)


def main():
    torch.manual_seed(0)
    mixer = Mixer()
    fn = torch.compile(mixer, fullgraph=True)
    return fn(torch.randn(3, 12))


if __name__ == "__main__":
    main()
