"""Near-miss: the loop rebinds a global the compiled function never reads."""
import torch

EPS = 1e-5
STEP = 0


def normalize(x):
    return (x - x.mean()) / (x.std() + EPS)


def main():
    global STEP
    torch.manual_seed(0)
    fn = torch.compile(normalize, backend="eager")
    outs = []
    for _ in range(10):
        outs.append(fn(torch.randn(16)))
        STEP += 1
    return outs


if __name__ == "__main__":
    main()
