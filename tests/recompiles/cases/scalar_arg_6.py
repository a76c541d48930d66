"""A string mode argument picks the reduction; the loop cycles through three modes."""
import torch


def reduce(x, mode):
    if mode == "mean":
        return x.mean(0)
    if mode == "max":
        return x.amax(0)
    return x.sum(0)


def main():
    torch.manual_seed(0)
    fn = torch.compile(reduce, backend="eager")
    x = torch.randn(6, 3)
    outs = []
    for i in range(9):
        mode = ("mean", "max", "sum")[i % 3]
        outs.append(fn(x, mode))  # recompile: scalar-arg-varies
    return outs


if __name__ == "__main__":
    main()
