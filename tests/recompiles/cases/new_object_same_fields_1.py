"""Near-miss: a new settings dataclass per call, always with the same field values."""
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
    outs = []
    for step in range(10):
        outs.append(fn(torch.randn(4), Settings(repeats=3, gain=0.5)))
    return outs


if __name__ == "__main__":
    main()
