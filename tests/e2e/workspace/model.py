"""A small model with the graph breaks people really write. fullgraph finds them before torch.compile runs."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


def report(t: torch.Tensor) -> None:
    print("mean:", t.mean())


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.lin(x)
        report(x)
        logger.info("forward done")
        if x.sum() > 0:
            x = x * 2
        torch._dynamo.graph_break()
        label = "温度 🔥"; print(label, x.shape)
        return x.relu()


model = torch.compile(Net(), fullgraph=True)
