"""Helpers the model calls: some break the graph, some are guarded and stay silent."""
import logging
import time

import torch

logger = logging.getLogger(__name__)


def is_compiling() -> bool:
    """The project's own guard, like transformers' is_torchdynamo_compiling()."""
    return torch.compiler.is_compiling()


def check_finite(name: str, t: torch.Tensor) -> torch.Tensor:
    if not is_compiling():  # guarded: eager-only validation
        if not torch.isfinite(t).all():
            logger.warning("%s has non-finite values", name)
    return t


def dump_activations(t: torch.Tensor, path: str = "/dev/null") -> None:
    torch.save(t.detach(), path)  # called from the (uncompiled) training loop: fine


def log_shape(name, t):
    print(f"{name}: {tuple(t.shape)}")  # expect: FG101


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    logger.info("took %.3fs", time.perf_counter() - start)
    return out
