"""dynamic=False on an image augmentation with random crop sizes."""
import random

import torch


def normalize_crop(img):
    return (img - img.mean()) / (img.std() + 1e-6)


def main():
    torch.manual_seed(0)
    rng = random.Random(0)
    fn = torch.compile(normalize_crop, backend="eager", dynamic=False)
    image = torch.rand(3, 64, 64)
    outs = []
    for _ in range(10):
        size = rng.randint(16, 60)
        crop = image[:, :size, :size]  # recompile: shape-varies-static
        outs.append(fn(crop).sum())
    return outs


if __name__ == "__main__":
    main()
