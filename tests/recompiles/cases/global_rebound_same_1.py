"""Near-miss: the global is reassigned every step, but always to the same value."""
import torch

CLIP = 1.0


def clip(x):
    return x.clamp(-CLIP, CLIP)


def main():
    global CLIP
    torch.manual_seed(0)
    fn = torch.compile(clip, backend="eager")
    outs = []
    for step in range(8):
        CLIP = 1.0
        outs.append(fn(torch.randn(6) * 3))
    return outs


if __name__ == "__main__":
    main()
