"""Near-miss: the float argument is the same constant on every call."""
import torch


def smooth(x, alpha):
    return alpha * x + (1 - alpha) * x.mean()


def main():
    torch.manual_seed(0)
    fn = torch.compile(smooth, backend="eager")
    outs = []
    for _ in range(10):
        outs.append(fn(torch.randn(8), 0.9))
    return outs


if __name__ == "__main__":
    main()
