"""A helper called per step compiles its inner function over the step's unroll depth."""
import torch


def rollout(x, horizon):
    def unroll(s):
        for _ in range(horizon):
            s = torch.tanh(s * 1.1)
        return s

    return torch.compile(unroll, backend="eager")(x)  # recompile: compile-in-loop


def main():
    torch.manual_seed(0)
    x = torch.randn(4)
    outs = []
    for horizon in range(1, 11):
        outs.append(rollout(x, horizon))
    return outs


if __name__ == "__main__":
    main()
