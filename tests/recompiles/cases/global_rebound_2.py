"""A global int sets how many smoothing passes the compiled function runs; the loop changes it."""
import torch

PASSES = 1


def smooth(x):
    for _ in range(PASSES):
        x = (x + x.roll(1, 0)) / 2
    return x


def main():
    global PASSES
    torch.manual_seed(0)
    fn = torch.compile(smooth, backend="eager")
    x = torch.randn(12)
    outs = []
    for i in range(10):
        PASSES = i + 1  # recompile: global-rebound
        outs.append(fn(x))
    return outs


if __name__ == "__main__":
    main()
