"""Each step wraps the current scale in a new lambda (bound through a default argument) and passes it in."""
import torch


def apply(x, fn):
    return fn(x) + 1


def main():
    torch.manual_seed(0)
    compiled = torch.compile(apply, backend="eager")
    x = torch.randn(5)
    outs = []
    for step in range(10):
        outs.append(compiled(x, lambda t, s=step: t * s))  # recompile: new-object-per-call
    return outs


if __name__ == "__main__":
    main()
