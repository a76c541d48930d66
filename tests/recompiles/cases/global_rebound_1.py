"""A module-level loss scale is rebound by the loop (dynamic loss scaling kept in a global float)."""
import torch

LOSS_SCALE = 1024.0


@torch.compile(backend="eager")
def scaled_loss(pred, target):
    return ((pred - target) ** 2).mean() * LOSS_SCALE


def main():
    global LOSS_SCALE
    torch.manual_seed(0)
    pred, target = torch.randn(8), torch.randn(8)
    outs = []
    for step in range(10):
        outs.append(scaled_loss(pred, target))
        LOSS_SCALE = LOSS_SCALE / 2  # recompile: global-rebound
    return outs


if __name__ == "__main__":
    main()
