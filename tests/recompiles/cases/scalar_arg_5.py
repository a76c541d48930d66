"""A bool `training` argument alternates between a train and an eval call each step."""
import torch


def block(x, w, training):
    y = x @ w
    if training:
        y = y * 0.5
    return torch.relu(y)


def main():
    torch.manual_seed(0)
    fn = torch.compile(block, backend="eager")
    x, w = torch.randn(4, 4), torch.randn(4, 4)
    outs = []
    for step in range(8):
        outs.append(fn(x, w, step % 2 == 0))  # recompile: scalar-arg-varies
    return outs


if __name__ == "__main__":
    main()
