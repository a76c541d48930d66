"""Some calls pass a leaf that requires grad (fine-tuning the input), others a plain tensor."""
import torch


def energy(x, w):
    return ((x @ w) ** 2).sum()


def main():
    torch.manual_seed(0)
    fn = torch.compile(energy, backend="eager")
    w = torch.randn(4, 4)
    outs = []
    for step in range(8):
        x = torch.randn(3, 4, requires_grad=step % 2 == 1)  # recompile: requires-grad-varies
        outs.append(fn(x, w).detach())
    return outs


if __name__ == "__main__":
    main()
