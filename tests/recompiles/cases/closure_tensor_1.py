"""Near-miss: the closure captures a tensor that is updated in place between calls."""
import torch


def main():
    torch.manual_seed(0)
    scale = torch.ones(())

    def forward(x):
        return torch.tanh(x) * scale

    fn = torch.compile(forward, backend="eager")
    x = torch.randn(4, 4)
    outs = []
    for step in range(10):
        outs.append(fn(x))
        scale.mul_(0.8)
    return outs


if __name__ == "__main__":
    main()
