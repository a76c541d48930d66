import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class GatedResidual(nn.Module):
    def __init__(self, dim=16, log_stats=True):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)
        self.log_stats = log_stats

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        y = x + g * self.proj(x)
        if self.log_stats:
            logger.debug("gate mean=%s", g.mean())
        return y


def main():
    logging.basicConfig(level=logging.WARNING)
    torch.manual_seed(0)
    m = torch.compile(nn.Sequential(GatedResidual(), GatedResidual(log_stats=False)))
    return m(torch.randn(3, 16))


if __name__ == "__main__":
    main()
