import random

import torch
import torch.nn as nn


class RandomHorizontalFlip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if random.random() < self.p:
            return img.flip(-1)
        return img


class ColorJitterLite(nn.Module):
    def __init__(self, brightness=0.2, contrast=0.2):
        super().__init__()
        self.brightness = brightness
        self.contrast = contrast

    def forward(self, img):
        b = 1.0 + (torch.rand(img.shape[0], 1, 1, 1) * 2 - 1) * self.brightness
        c = 1.0 + (torch.rand(img.shape[0], 1, 1, 1) * 2 - 1) * self.contrast
        mean = img.mean(dim=(1, 2, 3), keepdim=True)
        return ((img * b - mean) * c + mean).clamp(0, 1)


augment = nn.Sequential(RandomHorizontalFlip(0.5), ColorJitterLite())
augment = torch.compile(augment)


def main():
    random.seed(0)
    torch.manual_seed(0)
    imgs = torch.rand(4, 3, 8, 8)
    return torch.stack([augment(imgs) for _ in range(3)])


if __name__ == "__main__":
    print(main().shape)
