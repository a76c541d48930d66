"""The compiled inner function closes over `scale`, which the enclosing loop rebinds each step."""
import torch


def main():
    torch.manual_seed(0)
    scale = 1.0

    def forward(x):
        return torch.tanh(x) * scale

    fn = torch.compile(forward, backend="eager")
    x = torch.randn(4, 4)
    outs = []
    for step in range(10):
        outs.append(fn(x))
        scale = scale * 0.8  # recompile: closure-rebound
    return outs


if __name__ == "__main__":
    main()
