import torch
from torch import nn
import torch.nn.functional as F


class ConvBNAct(nn.Sequential):
    def __init__(self, cin, cout, k=3, s=1, act=True):
        super().__init__(
            nn.Conv2d(cin, cout, k, s, k // 2, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True) if act else nn.Identity(),
        )


class ASPPLite(nn.Module):
    def __init__(self, cin, cout, rates=(1, 2, 3)):
        super().__init__()
        self.branches = nn.ModuleList(
            nn.Conv2d(cin, cout, 3, padding=r, dilation=r, bias=False) for r in rates
        )
        self.image_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, cout, 1))
        self.project = ConvBNAct(cout * (len(rates) + 1), cout, k=1)

    def forward(self, x):
        size = x.shape[-2:]
        feats = [b(x) for b in self.branches]
        feats.append(F.interpolate(self.image_pool(x), size=size, mode="bilinear", align_corners=False))
        return self.project(torch.cat(feats, dim=1))


class SegNet(nn.Module):
    def __init__(self, num_classes=3, width=8, verbose=False, return_aux=False):
        super().__init__()
        self.encoder = nn.Sequential(ConvBNAct(3, width, s=2), ConvBNAct(width, 2 * width, s=2))
        self.aspp = ASPPLite(2 * width, 2 * width)
        self.classifier = nn.Conv2d(2 * width, num_classes, 1)
        self.aux = nn.Conv2d(2 * width, num_classes, 1) if return_aux else None
        self.verbose = verbose

    def forward(self, x):
        in_size = x.shape[-2:]
        feats = self.encoder(x)
        if self.verbose:
            print("encoder output:", feats.shape, "mean", feats.mean())
        out = {"out": F.interpolate(self.classifier(self.aspp(feats)), size=in_size, mode="bilinear",
                                    align_corners=False)}
        if self.aux is not None:
            out["aux"] = F.interpolate(self.aux(feats), size=in_size, mode="bilinear", align_corners=False)
        return out
