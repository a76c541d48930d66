import time
from collections import defaultdict

import torch
import torch.nn as nn


class Timers:
    """Poor man's profiler: named wall-clock sections, accumulated over steps."""

    def __init__(self):
        self.totals = defaultdict(float)

    def section(self, name):
        timers = self

        class _Section:
            def __enter__(self):
                self.t0 = time.perf_counter()

            def __exit__(self, *exc):
                timers.totals[name] += time.perf_counter() - self.t0
                return False

        return _Section()


TIMERS = Timers()


class Encoder(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.embed = nn.Linear(d, d)
        self.body = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))

    def forward(self, x):
        with TIMERS.section("embed"):
            h = self.embed(x)
        with TIMERS.section("body"):
            h = self.body(h) + h
        return h


def main():
    torch.manual_seed(0)
    enc = torch.compile(Encoder())
    x = torch.randn(4, 16)
    out = [enc(x) for _ in range(2)]
    assert set(TIMERS.totals) == {"embed", "body"}
    return out[-1]


if __name__ == "__main__":
    main()
