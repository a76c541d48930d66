"""A GPU-style augmentation stage compiled with dynamic=False, fed random-resized crops of varying size."""
import random

import torch
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
STD = torch.tensor([0.229, 0.224, 0.225])[:, None, None]


def color_jitter_normalize(img, brightness, contrast):
    img = img * brightness
    mean = img.mean(dim=(-2, -1), keepdim=True)
    img = (img - mean) * contrast + mean
    img = img.clamp(0, 1)
    return (img - MEAN) / STD


class RandomResizedCrop:
    def __init__(self, scale=(0.3, 1.0), seed=0):
        self.scale = scale
        self.rng = random.Random(seed)

    def __call__(self, img):
        _, h, w = img.shape
        frac = self.rng.uniform(*self.scale)
        ch, cw = max(8, int(h * frac)), max(8, int(w * frac))
        top = self.rng.randint(0, h - ch)
        left = self.rng.randint(0, w - cw)
        return img[:, top:top + ch, left:left + cw]


class Compose:
    def __init__(self, *stages):
        self.stages = stages

    def __call__(self, img):
        for stage in self.stages:
            img = stage(img)
        return img


def main():
    torch.manual_seed(0)
    crop = RandomResizedCrop()
    jitter = torch.compile(color_jitter_normalize, backend="eager", dynamic=False)
    images = torch.rand(10, 3, 48, 48)
    out = []
    for img in images:
        patch = crop(img)  # recompile: shape-varies-static
        patch = jitter(patch, 1.1, 0.9)
        out.append(F.adaptive_avg_pool2d(patch, 4))
    return out


if __name__ == "__main__":
    main()
