"""A positional-encoding helper is given the step index as an int."""
import torch


@torch.compile(backend="eager")
def add_time(x, t):
    return x + torch.sin(torch.arange(x.shape[-1]) * 0.01 * t)


def main():
    torch.manual_seed(0)
    x = torch.randn(3, 16)
    outs = []
    for t in range(10):
        outs.append(add_time(x, t))  # recompile: scalar-arg-varies
    return outs


if __name__ == "__main__":
    main()
