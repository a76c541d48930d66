"""Near-miss: dynamic=True, the step index is an int argument that changes every call."""
import torch


def add_time(x, t):
    return x + torch.sin(torch.arange(x.shape[-1]) * 0.01 * t)


def main():
    torch.manual_seed(0)
    fn = torch.compile(add_time, backend="eager", dynamic=True)
    x = torch.randn(3, 16)
    outs = []
    for t in range(10):
        outs.append(fn(x, t))
    return outs


if __name__ == "__main__":
    main()
