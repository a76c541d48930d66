"""A multi-crop batch: the number of crops per call is random, passed as a tuple of tensors."""
import random

import torch


def embed_crops(crops, w):
    return torch.stack([c.flatten() @ w for c in crops]).mean(0)


def main():
    torch.manual_seed(0)
    rng = random.Random(1)
    fn = torch.compile(embed_crops, backend="eager")
    w = torch.randn(12, 3)
    outs = []
    for _ in range(10):
        n = rng.randint(1, 8)
        crops = tuple(torch.randn(3, 4) for _ in range(n))
        outs.append(fn(crops, w))  # recompile: list-length-varies
    return outs


if __name__ == "__main__":
    main()
