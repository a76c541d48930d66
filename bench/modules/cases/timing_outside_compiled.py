"""Benchmark-style script: timers, progress output and throughput live outside the compiled model."""
import time

import torch
import torch.nn as nn


class ResidualMLP(nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        self.layers = nn.ModuleList([nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU())
                                     for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x


def benchmark(fn, x, warmup=1, iters=3, verbose=False):
    for _ in range(warmup):
        fn(x)
    times = []
    out = None
    for i in range(iters):
        t0 = time.perf_counter()
        out = fn(x)
        times.append(time.perf_counter() - t0)
        if verbose:
            print(f"iter {i + 1}/{iters}: {times[-1] * 1e3:.2f} ms")
    return out, sum(times) / len(times)


def main():
    torch.manual_seed(0)
    model = ResidualMLP().eval()
    compiled = torch.compile(model, fullgraph=True)
    x = torch.randn(16, 32)
    with torch.inference_mode():
        out, avg = benchmark(compiled, x)
    throughput = x.shape[0] / max(avg, 1e-9)
    assert throughput > 0
    return out


if __name__ == "__main__":
    main()
