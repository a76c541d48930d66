"""Mixed-precision experiments feed the same compiled function float32 and float64 inputs alternately."""
import torch


def rms_norm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


def main():
    torch.manual_seed(0)
    fn = torch.compile(rms_norm, backend="eager")
    outs = []
    for step in range(8):
        dtype = torch.float64 if step % 2 else torch.float32
        x = torch.randn(4, 8, dtype=dtype)  # recompile: dtype-varies
        outs.append(fn(x).float())
    return outs


if __name__ == "__main__":
    main()
