"""Near-miss (on backend="eager"): torch.compile of the same module-level function inside the loop."""
import torch


def step_fn(x, w):
    return torch.relu(x @ w)


def main():
    torch.manual_seed(0)
    w = torch.randn(3, 3)
    outs = []
    for step in range(10):
        fn = torch.compile(step_fn, backend="eager")
        outs.append(fn(torch.randn(3, 3), w))
    return outs


if __name__ == "__main__":
    main()
