"""Batch-level MixUp / CutMix in the style of timm's Mixup, but with the random draws made on the host
and the mixing itself compiled."""
import numpy as np
import torch
import torch.nn.functional as F


def one_hot(y, num_classes, on_value=1.0, off_value=0.0):
    return torch.full((y.size(0), num_classes), off_value).scatter_(1, y.view(-1, 1), on_value)


def mixup_target(y, num_classes, lam, smoothing=0.0):
    off = smoothing / num_classes
    on = 1.0 - smoothing + off
    y1 = one_hot(y, num_classes, on, off)
    y2 = one_hot(y.flip(0), num_classes, on, off)
    return y1 * lam + y2 * (1.0 - lam)


@torch.compile(dynamic=False)
def mix_batch(x, y, lam, box, num_classes: int, use_cutmix: bool):
    if use_cutmix:
        h, w = x.shape[-2:]
        rows = torch.arange(h).view(1, h, 1)
        cols = torch.arange(w).view(1, 1, w)
        inside = (rows >= box[0]) & (rows < box[1]) & (cols >= box[2]) & (cols < box[3])
        x = torch.where(inside.unsqueeze(1), x.flip(0), x)
        area = ((box[1] - box[0]) * (box[3] - box[2])).float() / (h * w)
        lam = 1.0 - area
    else:
        x = x * lam + x.flip(0) * (1.0 - lam)
    return x, mixup_target(y, num_classes, lam, smoothing=0.1)


def rand_box(h, w, lam, rng):
    cut = np.sqrt(1.0 - lam)
    ch, cw = int(h * cut), int(w * cut)
    cy, cx = rng.integers(h), rng.integers(w)
    return torch.tensor([np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h),
                         np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)])


def main():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 10, (4,))
    outs = []
    for use_cutmix in (False, True):
        lam = torch.tensor(float(rng.beta(0.8, 0.8)))
        box = rand_box(8, 8, lam.item(), rng)
        xm, ym = mix_batch(x, y, lam, box, 10, use_cutmix)
        outs += [xm, ym]
    loss = torch.sum(-outs[-1] * F.log_softmax(torch.randn(4, 10), dim=-1), dim=-1).mean()
    return outs, loss


if __name__ == "__main__":
    main()
