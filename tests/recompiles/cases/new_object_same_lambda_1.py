"""Near-miss: a new lambda object per call, but the same code and no captured values."""
import torch


def apply(x, fn):
    return fn(x) + 1


def main():
    torch.manual_seed(0)
    compiled = torch.compile(apply, backend="eager")
    x = torch.randn(5)
    outs = []
    for step in range(10):
        outs.append(compiled(x, lambda t: t * 2))
    return outs


if __name__ == "__main__":
    main()
