"""Near-miss: the update is compiled once before the loop; the learning rate is a tensor argument."""
import torch


def update(p, g, lr):
    return p - lr * g


def main():
    torch.manual_seed(0)
    p, g = torch.randn(6), torch.randn(6)
    fn = torch.compile(update, backend="eager")
    outs = []
    for step in range(10):
        p = fn(p, g, torch.tensor(0.1 / (step + 1)))
        outs.append(p)
    return outs


if __name__ == "__main__":
    main()
