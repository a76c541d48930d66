"""A new dataclass of settings is made for every call; one of its int fields changes (ints in control flow)."""
import dataclasses

import torch


@dataclasses.dataclass
class Settings:
    repeats: int
    gain: float = 1.0


def body(x, cfg):
    for _ in range(cfg.repeats):
        x = torch.sin(x) * cfg.gain
    return x


def main():
    torch.manual_seed(0)
    fn = torch.compile(body, backend="eager")
    x = torch.randn(4)
    outs = []
    for step in range(10):
        outs.append(fn(x, Settings(repeats=1 + step)))  # recompile: new-object-per-call
    return outs


if __name__ == "__main__":
    main()
