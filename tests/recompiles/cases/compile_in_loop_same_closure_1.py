"""Near-miss: a closure compiled per epoch, but capturing the same constant every time."""
import torch


def make_update(lr):
    def update(p, g):
        return p - lr * g

    return update


def main():
    torch.manual_seed(0)
    p = torch.randn(6)
    outs = []
    for epoch in range(6):
        update = torch.compile(make_update(0.05), backend="eager")
        p = update(p, torch.randn(6))
        outs.append(p)
    return outs


if __name__ == "__main__":
    main()
