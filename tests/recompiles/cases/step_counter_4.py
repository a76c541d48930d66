"""A scheduler writes a float temperature attribute on the module before every call."""
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(5, 3)
        self.temperature = 1.0

    def forward(self, x):
        return torch.softmax(self.head(x) / self.temperature, dim=-1)


def main():
    torch.manual_seed(0)
    scorer = Scorer()
    fn = torch.compile(scorer, backend="eager")
    x = torch.randn(2, 5)
    outs = []
    for step in range(10):
        scorer.temperature = 1.0 + 0.1 * step  # recompile: module-attr-mutated
        outs.append(fn(x))
    return outs


if __name__ == "__main__":
    main()
