"""Near-miss: the global loss scale is a tensor updated in place; Dynamo guards its metadata, not its value."""
import torch

LOSS_SCALE = torch.tensor(1024.0)


@torch.compile(backend="eager")
def scaled_loss(pred, target):
    return ((pred - target) ** 2).mean() * LOSS_SCALE


def main():
    torch.manual_seed(0)
    pred, target = torch.randn(8), torch.randn(8)
    outs = []
    for step in range(10):
        outs.append(scaled_loss(pred, target))
        LOSS_SCALE.div_(2)
    return outs


if __name__ == "__main__":
    main()
