from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    """Sigmoid focal loss (RetinaNet), normalised by the number of positive anchors."""

    def __init__(self, alpha: Optional[float] = 0.25, gamma: float = 2.0, reduction: str = "sum"):
        super().__init__()
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"Invalid reduction: {reduction!r}")
        self.alpha = alpha
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        assert logits.shape == targets.shape, f"shape mismatch {tuple(logits.shape)} vs {tuple(targets.shape)}"
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce * ((1 - p_t) ** self.gamma)
        if self.alpha is not None:
            alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
            loss = alpha_t * loss
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            num_pos = targets.sum().clamp(min=1.0)
            return loss.sum() / num_pos
        return loss


def main():
    torch.manual_seed(0)
    crit = torch.compile(FocalLoss(), fullgraph=True)
    logits = torch.randn(4, 100, 3)
    targets = (torch.rand(4, 100, 3) > 0.95).float()
    crit_none = torch.compile(FocalLoss(alpha=None, reduction="none"), fullgraph=True)
    return crit(logits, targets), crit_none(logits, targets).sum()


if __name__ == "__main__":
    print(main())
