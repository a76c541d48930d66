"""A global config dict's entry is overwritten each step (the dict object stays the same)."""
import torch

CONFIG = {"dropout_scale": 1.0, "clip": 5.0}


def head(x):
    return torch.clamp(x * CONFIG["dropout_scale"], -CONFIG["clip"], CONFIG["clip"])


def main():
    torch.manual_seed(0)
    fn = torch.compile(head, backend="eager")
    x = torch.randn(6) * 4
    outs = []
    for step in range(10):
        CONFIG["dropout_scale"] = 1.0 - 0.05 * step  # recompile: global-rebound
        outs.append(fn(x))
    return outs


if __name__ == "__main__":
    main()
