"""A new functools.partial carrying the step's number of heads is passed to the compiled function."""
import functools

import torch


def split_heads(x, heads):
    b, d = x.shape
    return x.reshape(b, heads, d // heads).sum(-1)


def run(x, splitter):
    return splitter(x)


def main():
    torch.manual_seed(0)
    fn = torch.compile(run, backend="eager")
    x = torch.randn(2, 24)
    outs = []
    for heads in (1, 2, 3, 4, 6, 8, 12, 24, 2, 3):
        outs.append(fn(x, functools.partial(split_heads, heads=heads)))  # recompile: new-object-per-call
    return outs


if __name__ == "__main__":
    main()
