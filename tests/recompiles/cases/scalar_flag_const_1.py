"""Near-miss: a bool flag argument that is True on every call of the training loop."""
import torch


def block(x, w, training):
    y = x @ w
    if training:
        y = y * 0.5
    return torch.relu(y)


def main():
    torch.manual_seed(0)
    fn = torch.compile(block, backend="eager")
    w = torch.randn(4, 4)
    outs = []
    for step in range(8):
        outs.append(fn(torch.randn(4, 4), w, True))
    return outs


if __name__ == "__main__":
    main()
