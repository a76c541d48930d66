"""A global debug flag is toggled every step; the compiled function reads it."""
import torch

DEBUG = False


def layer(x):
    y = torch.relu(x)
    if DEBUG:
        y = y.clamp(max=1.0)
    return y


def toggle():
    global DEBUG
    DEBUG = not DEBUG  # recompile: global-rebound


def main():
    torch.manual_seed(0)
    fn = torch.compile(layer, backend="eager")
    x = torch.randn(5) * 3
    outs = []
    for _ in range(8):
        outs.append(fn(x))
        toggle()
    return outs


if __name__ == "__main__":
    main()
