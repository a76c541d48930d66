"""Near-miss: inputs are cast to one dtype before the compiled call, whatever the loader produced."""
import torch


def rms_norm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


def main():
    torch.manual_seed(0)
    fn = torch.compile(rms_norm, backend="eager")
    outs = []
    for step in range(8):
        dtype = torch.float64 if step % 2 else torch.float32
        x = torch.randn(4, 8, dtype=dtype).to(torch.float32)
        outs.append(fn(x))
    return outs


if __name__ == "__main__":
    main()
