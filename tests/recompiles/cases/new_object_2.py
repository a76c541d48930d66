"""A fresh options dict with a per-step value is built for every call."""
import torch


def augment(x, opts):
    return x * opts["gain"] + opts["bias"]


def main():
    torch.manual_seed(0)
    fn = torch.compile(augment, backend="eager")
    x = torch.randn(3, 3)
    outs = []
    for step in range(10):
        outs.append(fn(x, {"gain": 1.0 + step / 10, "bias": 0.0}))  # recompile: new-object-per-call
    return outs


if __name__ == "__main__":
    main()
