"""Each step compiles a fresh closure over the step's learning rate (a new compiled object per step)."""
import torch


def make_update(lr):
    def update(p, g):
        return p - lr * g

    return update


def main():
    torch.manual_seed(0)
    p, g = torch.randn(6), torch.randn(6)
    outs = []
    for step in range(10):
        update = torch.compile(make_update(0.1 / (step + 1)), backend="eager")  # recompile: compile-in-loop
        p = update(p, g)
        outs.append(p)
    return outs


if __name__ == "__main__":
    main()
