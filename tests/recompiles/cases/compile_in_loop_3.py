"""The loop compiles with a custom backend function defined inside it: a new backend object every step."""
import torch


def step_fn(x, w):
    return torch.relu(x @ w)


def main():
    torch.manual_seed(0)
    x, w = torch.randn(3, 3), torch.randn(3, 3)
    outs = []
    for step in range(10):
        def backend(gm, example_inputs):
            return gm.forward

        fn = torch.compile(step_fn, backend=backend)  # recompile: compile-in-loop
        outs.append(fn(x, w))
    return outs


if __name__ == "__main__":
    main()
