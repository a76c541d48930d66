import torch
import torch.nn.functional as F

SKIP_NONFINITE = True


def compute_loss(logits, targets, weights=None):
    loss = F.binary_cross_entropy_with_logits(logits, targets, weight=weights, reduction="mean")
    if SKIP_NONFINITE and not torch.isfinite(loss):
        print(f"non-finite loss encountered, skipping batch")
        return torch.zeros((), requires_grad=True)
    return loss


class LossModule(torch.nn.Module):
    def __init__(self, pos_weight: float = 2.0):
        super().__init__()
        self.register_buffer("pos_weight", torch.tensor(pos_weight))

    def forward(self, logits, targets):
        w = torch.where(targets > 0.5, self.pos_weight, torch.ones_like(targets))
        return compute_loss(logits, targets, w)


def main():
    torch.manual_seed(0)
    crit = torch.compile(LossModule())
    logits = torch.randn(16, 3)
    targets = (torch.rand(16, 3) > 0.7).float()
    return crit(logits, targets)


if __name__ == "__main__":
    print(main())
