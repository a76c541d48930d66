"""The number of refinement iterations is an int argument used as a loop bound inside the compiled function."""
import torch


def refine(x, n_iters):
    for _ in range(n_iters):
        x = x - 0.1 * torch.tanh(x)
    return x


def main():
    torch.manual_seed(0)
    compiled = torch.compile(refine, backend="eager")
    x = torch.randn(5, 5)
    outs = []
    for n in range(1, 11):
        outs.append(compiled(x, n))  # recompile: scalar-arg-varies
    return outs


if __name__ == "__main__":
    main()
