import torch
import torch.nn as nn


class StagedNet(nn.Module):
    def __init__(self, widths=(8, 16, 16, 8)):
        super().__init__()
        self.stages = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.skip_from = {2: 0}

    def iter_stages(self, x):
        """Yield (index, output) of each stage in turn."""
        for i, stage in enumerate(self.stages):
            x = torch.relu(stage(x))
            yield i, x

    def forward(self, x):
        outputs = {}
        for i, h in self.iter_stages(x):
            outputs[i] = h
        total = sum(h.mean() for h in outputs.values())
        return outputs[len(self.stages) - 1], total


def main():
    torch.manual_seed(0)
    net = StagedNet()
    compiled = torch.compile(net, fullgraph=True)
    return compiled(torch.randn(3, 8))


if __name__ == "__main__":
    main()
