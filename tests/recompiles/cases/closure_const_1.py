"""Near-miss: the compiled closure captures hyper-parameters that are fixed before the loop."""
import torch


def make_loss(margin, reduction):
    def loss(a, b):
        d = torch.relu(margin - (a * b).sum(-1))
        return d.mean() if reduction == "mean" else d.sum()

    return loss


def main():
    torch.manual_seed(0)
    fn = torch.compile(make_loss(0.5, "mean"), backend="eager")
    outs = []
    for _ in range(10):
        outs.append(fn(torch.randn(4, 3), torch.randn(4, 3)))
    return outs


if __name__ == "__main__":
    main()
