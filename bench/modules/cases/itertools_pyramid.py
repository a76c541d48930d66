import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F


class FPN(nn.Module):
    """Feature pyramid with lateral + top-down connections; channel plan built with itertools."""

    def __init__(self, channels=(4, 8, 16), out_ch=8):
        super().__init__()
        self.stages = nn.ModuleList(nn.Conv2d(a, b, 3, 2, 1) for a, b in itertools.pairwise((3,) + tuple(channels)))
        self.lateral = nn.ModuleList(nn.Conv2d(c, out_ch, 1) for c in channels)
        self.smooth = nn.ModuleList(nn.Conv2d(out_ch, out_ch, 3, padding=1) for _ in channels)

    def forward(self, x):
        feats = list(itertools.accumulate(self.stages, lambda h, stage: F.relu(stage(h)), initial=x))[1:]
        laterals = [lat(f) for lat, f in zip(self.lateral, feats)]
        for hi, lo in itertools.pairwise(reversed(range(len(laterals)))):
            laterals[lo] = laterals[lo] + F.interpolate(laterals[hi], size=laterals[lo].shape[-2:], mode="nearest")
        outs = [s(l) for s, l in zip(self.smooth, laterals)]
        pooled = torch.cat([o.mean((2, 3)) for o in itertools.chain(outs, outs[-1:])], dim=1)
        return outs, pooled


def main():
    torch.manual_seed(0)
    fpn = torch.compile(FPN())
    outs, pooled = fpn(torch.randn(1, 3, 32, 32))
    return [o.sum() for o in outs], pooled


if __name__ == "__main__":
    main()
