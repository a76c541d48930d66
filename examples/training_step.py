"""A compiled training step without fullgraph=True: every break is a slowdown, not an error."""
import logging
import time

import torch
import torch.nn as nn
from tqdm import tqdm

logger = logging.getLogger(__name__)


class Classifier(nn.Module):
    def __init__(self, d_in: int = 8, n_cls: int = 3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 16), nn.ReLU(), nn.Linear(16, n_cls))
        self.steps = 0

    def forward(self, x):
        self.steps += 1  # expect: FG601 (no break: Dynamo compiles `step` again on every call)
        return self.body(x)


model = Classifier()
criterion = nn.CrossEntropyLoss()


@torch.compile
def step(x: torch.Tensor, y: torch.Tensor):
    t0 = time.time()  # expect: FG107
    logits = model(x)
    loss = criterion(logits, y)
    acc = (logits.argmax(-1) == y).float().mean().item()  # expect: FG303
    logger.info("loss %.3f acc %.2f", loss, acc)  # expect: FG102
    if not torch.compiler.is_compiling():
        logger.debug("eager-only debug output")
    return loss, time.time() - t0  # expect: FG107


def train(n: int = 3):
    for _ in tqdm(range(n), disable=True):  # not compiled: fine
        x, y = torch.randn(4, 8), torch.randint(0, 3, (4,))
        step(x, y)


if __name__ == "__main__":
    train()
