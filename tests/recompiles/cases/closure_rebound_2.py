"""A factory returns a step function and a bump function sharing a nonlocal int used as a loop bound."""
import torch


def make_stepper():
    depth = 1

    def step(x):
        for _ in range(depth):
            x = x * 0.9 + 0.1
        return x

    def deeper():
        nonlocal depth
        depth += 1  # recompile: closure-rebound

    return step, deeper


def main():
    torch.manual_seed(0)
    step, deeper = make_stepper()
    fn = torch.compile(step, backend="eager")
    x = torch.randn(3)
    outs = []
    for _ in range(10):
        outs.append(fn(x))
        deeper()
    return outs


if __name__ == "__main__":
    main()
