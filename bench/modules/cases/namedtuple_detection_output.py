from collections import namedtuple
from typing import NamedTuple, Optional

import torch
import torch.nn as nn

Anchors = namedtuple("Anchors", ["centers", "sizes"])


class DetOutput(NamedTuple):
    boxes: torch.Tensor
    logits: torch.Tensor
    aux: Optional[torch.Tensor] = None


class DetHead(nn.Module):
    def __init__(self, ch=8, n_anchors=3, n_classes=4, with_aux=False):
        super().__init__()
        self.reg = nn.Conv2d(ch, n_anchors * 4, 1)
        self.cls = nn.Conv2d(ch, n_anchors * n_classes, 1)
        self.aux = nn.Conv2d(ch, 1, 1) if with_aux else None
        self.n_anchors, self.n_classes = n_anchors, n_classes

    def forward(self, feat, anchors: Anchors) -> DetOutput:
        n, _, h, w = feat.shape
        deltas = self.reg(feat).permute(0, 2, 3, 1).reshape(n, -1, 4)
        logits = self.cls(feat).permute(0, 2, 3, 1).reshape(n, -1, self.n_classes)
        ctr = anchors.centers + deltas[..., :2] * anchors.sizes
        size = anchors.sizes * deltas[..., 2:].exp()
        boxes = torch.cat([ctr - size / 2, ctr + size / 2], dim=-1)
        out = DetOutput(boxes=boxes, logits=logits)
        if self.aux is not None:
            out = out._replace(aux=self.aux(feat).sigmoid())
        return out


def main():
    torch.manual_seed(0)
    head = DetHead(with_aux=True)
    head = torch.compile(head, fullgraph=True)
    anchors = Anchors(centers=torch.rand(1, 48, 2) * 16, sizes=torch.full((1, 48, 2), 4.0))
    out = head(torch.randn(2, 8, 4, 4), anchors)
    return out.boxes, out.logits, out.aux


if __name__ == "__main__":
    main()
