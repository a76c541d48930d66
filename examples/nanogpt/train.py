"""Training script: the compiled roots live here, the model code in other modules."""
import logging
import time

import torch
import torch.nn.functional as F

from .model import GPT, GPTConfig
from .utils import dump_activations

log = logging.getLogger("train")


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main(steps: int = 2):
    torch.manual_seed(0)
    cfg = GPTConfig()
    model = GPT(cfg)
    compiled = torch.compile(model, fullgraph=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(steps):  # the training loop is not compiled: timing and logging are fine here
        t0 = time.perf_counter()
        idx = torch.randint(0, cfg.vocab_size, (2, cfg.block_size))
        logits = compiled(idx)
        loss = loss_fn(logits, torch.roll(idx, -1, dims=1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        dump_activations(logits)
        log.info("step %d loss %.3f (%.2fs)", step, loss.item(), time.perf_counter() - t0)


if __name__ == "__main__":
    main()
